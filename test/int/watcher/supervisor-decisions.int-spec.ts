import type { Queue } from 'bullmq';
import { MetaSandbox } from '@vigil/meta-sandbox';
import { ExitCheckRunner } from '@vigil/supervisor';
import { RedisTestContext, newNoopTask, TEST_CLAIM, WatcherHarness } from '@vigil/testing';
import { type CampaignBuildInput, campaignBuildKind } from '@vigil/builtin-kinds';
import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';

describe('watcher decisions', () => {
  const sandbox = new MetaSandbox({ accessToken: 'sandbox-token', seed: 3 });
  let ctx: RedisTestContext;
  let watcher: WatcherHarness;
  let queue: Queue;

  beforeAll(async () => {
    const { baseUrl } = await sandbox.listen(0);
    ctx = new RedisTestContext('decisions', {
      META_API_BASE_URL: baseUrl,
      META_ACCESS_TOKEN: 'sandbox-token',
    });
    watcher = await WatcherHarness.start(ctx);
    queue = ctx.sliceQueue();
  });
  afterAll(async () => {
    await ctx.close();
    await sandbox.close();
  });

  it('republishes the slice of a queued task whose job vanished, once', async () => {
    const { task } = await watcher.tasks.create('lost-job', newNoopTask(), '', Date.now() - 600_000);
    const supervisor = watcher.supervisor;
    expect(await supervisor.inspect(task.id, 'deadline')).toBe('republished');
    expect((await queue.getJob(`${task.id}-a1-s1`))?.data).toMatchObject({
      taskId: task.id,
      attempt: 1,
      reason: 'republished',
    });
    // Now the job waits: a second look leaves it alone.
    expect(await supervisor.inspect(task.id, 'deadline')).toBe('job_waiting');
    expect(await queue.getJobCounts('waiting')).toMatchObject({ waiting: 1 });
  });

  it('puts back a running task whose deadline entry came due before its heartbeat went stale', async () => {
    const { task } = await watcher.tasks.create('early-entry', newNoopTask());
    await watcher.lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const beat =
      (await watcher.tasks.get(task.id))!.lastHeartbeatAt ?? (await watcher.tasks.get(task.id))!.updatedAt;
    // Steps move the index in strides (record-step.lua): an entry may be due a little early.
    await ctx.redis.zadd(ctx.keys.deadlineIndex(0), Date.now() - 1, task.id);
    expect(await watcher.supervisor.inspect(task.id, 'deadline')).toBe('hands_off');
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id))).toBe(
      beat + ctx.config.staleAfterMs,
    );
    expect((await watcher.tasks.get(task.id))?.attempt).toBe(1);
  });

  it('runs checks on the recorded parts they read: a noop task verifies from its done steps alone', async () => {
    const { task } = await watcher.tasks.create('reads-done-steps', newNoopTask());
    await ctx.redis.sadd(ctx.keys.doneSteps(task.id), 'step:0', 'step:1', 'step:2');
    // An action log entry nothing can decode: a check that never reads the log never decodes it.
    await ctx.redis.rpush(ctx.keys.actions(task.id), 'not json');
    const run = await watcher.app.get(ExitCheckRunner).run(task, new AbortController().signal);
    expect(run.checks).toEqual([
      expect.objectContaining({ check: 'all_steps_recorded', expected: 3, actual: 3, passed: true }),
    ]);
    expect(run.passed).toBe(true);
  });

  it('retries a check that cannot run later, counting it neither pass nor fail', async () => {
    const input = campaignBuildDemoInput({
      adSets: 1,
      adsPerSet: 1,
      adAccountId: 'act_555',
    }) as CampaignBuildInput;
    const { task } = await watcher.tasks.create(
      'verify-later',
      newNoopTask({
        kind: 'campaign_build',
        input,
        exitCriteria: campaignBuildKind.defaultExitCriteria(input),
        totalUnits: 5,
      }),
    );
    const { lifecycle } = watcher;
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.claimDone(task, { attempt: 1, claim: 'built' });
    sandbox.setFaults({ transient500Probability: 1 });
    const supervisor = watcher.supervisor;
    expect(await supervisor.inspect(task.id, 'verifying')).toBe('verification_pending');
    const pending = (await watcher.tasks.get(task.id))!;
    expect([pending.status, pending.attempt, pending.retryHistory.length, pending.verification]).toEqual([
      'verifying',
      1,
      0,
      null,
    ]);
    sandbox.setFaults({});
    // The API answers again, and nothing was built: now it is a failed verification, retried.
    expect(await supervisor.inspect(task.id, 'verifying')).toBe('recovered');
    const retried = (await watcher.tasks.get(task.id))!;
    expect(retried.retryHistory[0]).toMatchObject({ reason: 'failed_verification' });
    expect(retried.verification?.checks.some((check) => !check.passed)).toBe(true);
  }, 60_000);

  it('fails a task whose last verification failed on that check run: the API is read once', async () => {
    const { task } = await watcher.tasks.create(
      'verify-last',
      newNoopTask({ input: { steps: 3 }, agent: { policy: ['opus'] } }),
    );
    const { lifecycle } = watcher;
    const lease = { owner: 'watcher-test', expiresAt: Date.now() + 60_000 };
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.recover(task, { reason: 'frozen', detail: 'no heartbeat', lease });
    // As the Watcher publishes a retry: the one the policy allows has run.
    const retry = { retryNumber: 1, reason: 'frozen' as const, lastVerifiedStep: 0 };
    await lifecycle.requeueForRetry({ ...task, attempt: 2 }, { model: 'opus', retryContext: retry, lease });
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM });
    await lifecycle.claimDone(task, { attempt: 2, claim: 'done' });
    const run = jest.spyOn(watcher.app.get(ExitCheckRunner), 'run');
    try {
      // Nothing recorded: the claim fails its check, and the one retry the policy has is spent.
      expect(await watcher.supervisor.inspect(task.id, 'verifying')).toBe('failed');
      expect(run).toHaveBeenCalledTimes(1);
    } finally {
      run.mockRestore();
    }
    const failed = (await watcher.tasks.get(task.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatchObject({
      reason: 'policy_exhausted',
      verified: { checks: [{ check: 'all_steps_recorded', passed: false }] },
    });
  });
});
