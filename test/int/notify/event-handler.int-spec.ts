import { sectionsOf } from '@vigil/config';
import { parseTaskEvent, taskEventFields } from '@vigil/events';
import {
  DeliveryOutbox,
  EventHandler,
  NOTIFIER_GROUP,
  NotifierConsumer,
  WebhookChannel,
  WebhookQueues,
} from '@vigil/notify';
import { newNoopTask, RedisTestContext, TaskHarness, TEST_CLAIM } from '@vigil/testing';
import { MessageLog, TaskRecord } from '@vigil/tasks';

/** Events written by the real transition scripts, handled (and redelivered) against the real Redis. */
describe('event messages (append-message.lua)', () => {
  const ctx = new RedisTestContext('notify-events', {
    WEBHOOK_DEFAULT_URL: 'http://127.0.0.1:9/default-hook',
    NOTIFIER_CLAIM_IDLE_MS: '300',
  });
  const { tasks: repo, lifecycle } = new TaskHarness(ctx);
  const lease = { owner: 'watcher', expiresAt: Date.now() + 60_000 };
  const log = new MessageLog(ctx.redis, ctx.keys);
  const queues = new WebhookQueues(sectionsOf(ctx.config).redis, sectionsOf(ctx.config).webhooks, ctx.keys);
  const outbox = new DeliveryOutbox(ctx.redis, ctx.keys, [new WebhookChannel(queues, ctx.config)]);
  const handler = new EventHandler(repo, log, outbox);
  let seq = 0;

  afterAll(async () => {
    await queues.close();
    await ctx.close();
  });

  const eventsOf = async (taskId: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.taskId === taskId);

  const agentSays = (task: TaskRecord, text: string) =>
    ctx.redis.xadd(
      ctx.keys.events(0),
      '*',
      ...taskEventFields({
        type: 'task.message',
        taskId: task.id,
        tenantId: task.tenantId,
        attempt: task.attempt,
        at: Date.now(),
        status: 'running',
        from: 'running',
        data: { kind: 'agent', text },
      }),
    );

  /** A whole life through the real scripts: question, answer, pause, resume, recovery, agent, done. */
  async function liveTask(overrides: Parameters<typeof newNoopTask>[0]): Promise<TaskRecord> {
    const { task } = await repo.create(`events${seq++}`, newNoopTask(overrides));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.askPerson(task, { attempt: 1, question: 'Which ad account?' });
    await lifecycle.answer(task, { text: 'The EU one.' });
    await lifecycle.pause(task);
    await lifecycle.resume(task);
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM });
    await lifecycle.recover(
      { ...task, attempt: 2 },
      { reason: 'crashed', detail: 'worker w1 is gone', lease },
    );
    await lifecycle.requeueForRetry(
      { ...task, attempt: 3 },
      { model: 'opus', retryContext: { retryNumber: 1, reason: 'crashed', lastVerifiedStep: 1 }, lease },
    );
    await lifecycle.claimSlice(task, { attempt: 3, ...TEST_CLAIM });
    await agentSays(task, 'Two of three steps are done.');
    await lifecycle.claimDone(task, { attempt: 3, claim: '' });
    const checks = [{ check: 'all_steps_recorded', expected: 3, actual: 3, passed: true }];
    await lifecycle.complete(
      { ...task, attempt: 3 },
      { verification: { passed: true, checks, at: Date.now() }, findings: [], lease },
    );
    return task;
  }

  /** The messages liveTask's events make: question, answer, pause, resume, recovery, agent text, end. */
  const LIVE_TASK_MESSAGE_KINDS = [
    'human_input',
    'control',
    'control',
    'control',
    'recovery',
    'agent',
    'completed',
  ];

  it('sends one message per meaningful event, each once however often the event is redelivered', async () => {
    const task = await liveTask({ sandbox: false, notify: { webhookUrl: 'http://127.0.0.1:9/task-hook' } });
    const events = await eventsOf(task.id);
    for (const event of events) await handler.handle(event);
    // Redelivery (a claimed orphan, a consumer that crashed before its ack) changes nothing.
    for (const event of [...events].reverse())
      expect(['duplicate', 'ignored']).toContain(await handler.handle(event));
    const messages = await log.list(task.id);
    expect(messages.map((m) => m.kind)).toEqual(LIVE_TASK_MESSAGE_KINDS);
    expect(messages[0].text).toContain('Which ad account?');
    expect(messages[1].text).toContain('Your answer was received');
    expect(messages[4].text).not.toMatch(/worker w1|opus/);
    expect(messages[5].text).toBe('Two of three steps are done.');
    expect(messages[6].text).toContain('all_steps_recorded (expected 3, found 3)');
    const sources = events.filter(
      (event) =>
        !['task.created', 'task.started', 'task.slice_started', 'task.progress', 'task.verifying'].includes(
          event.type,
        ),
    );
    expect(messages.map((m) => m.id)).toEqual(sources.map((event) => `${task.id}-ev-${event.id}`));
    // The task's own URL wins over WEBHOOK_DEFAULT_URL; one job per message, keyed by its id.
    for (const message of messages) {
      const job = await queues.queueFor(task.id).getJob(message.id);
      expect(job?.data).toEqual({ url: 'http://127.0.0.1:9/task-hook', message });
    }
    expect(await queues.queueFor(task.id).count()).toBe(messages.length);
    expect(await ctx.redis.zcard(ctx.keys.notifyOutbox(0))).toBe(0);
    expect((await ctx.redis.hgetall(ctx.keys.task(task.id))).finalMessageId).toBe(messages[6].id);
  });

  it('sends nothing after the final message', async () => {
    const { task } = await repo.create(`events${seq++}`, newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await agentSays(task, 'early');
    await lifecycle.stop(task);
    await agentSays(task, 'too late');
    const events = await eventsOf(task.id);
    const outcomes = [];
    for (const event of events) outcomes.push(await handler.handle(event));
    expect(outcomes).toEqual(['ignored', 'ignored', 'appended', 'appended', 'after_final']);
    const messages = await log.list(task.id);
    expect(messages.map((m) => [m.kind, m.text.slice(0, 21)])).toEqual([
      ['agent', 'early'],
      ['control', 'Your task "noop task"'],
    ]);
    expect(messages[1].text).toContain('was stopped at your request');
    const final = { ...messages[1], id: `${task.id}-ev-9999999999999-0` };
    expect(await log.append(final, true, [], Date.now())).toBe('other_final');
  });

  it('keeps sandbox tasks in the message log, and uses WEBHOOK_DEFAULT_URL for tasks without a URL', async () => {
    const sandboxed = await liveTask({
      sandbox: true,
      notify: { webhookUrl: 'http://127.0.0.1:9/task-hook' },
    });
    const plain = await liveTask({ sandbox: false, notify: {} });
    for (const task of [sandboxed, plain])
      for (const event of await eventsOf(task.id)) await handler.handle(event);
    expect(await log.list(sandboxed.id)).toHaveLength(7);
    const jobs = await queues.queueFor(sandboxed.id).getJobs(['waiting', 'delayed', 'completed', 'failed']);
    expect(jobs.filter((job) => job.data.message.taskId === sandboxed.id)).toHaveLength(0);
    const plainJobs = jobs.filter((job) => job.data.message.taskId === plain.id);
    expect(plainJobs).toHaveLength(7);
    expect(new Set(plainJobs.map((job) => job.data.url))).toEqual(
      new Set(['http://127.0.0.1:9/default-hook']),
    );
  });

  it("claims a dead consumer's pending events: none lost, none doubled", async () => {
    const stream = ctx.keys.events(0);
    await ctx.redis.xgroup('CREATE', stream, NOTIFIER_GROUP, '$', 'MKSTREAM').catch(() => undefined);
    const task = await liveTask({ sandbox: true });
    // A consumer that read everything and died before acknowledging anything.
    const read = (await ctx.redis.xreadgroup(
      'GROUP',
      NOTIFIER_GROUP,
      'dead-notifier',
      'COUNT',
      1000,
      'STREAMS',
      stream,
      '>',
    )) as [string, [string, string[]][]][];
    expect(read[0][1].length).toBeGreaterThanOrEqual(13);
    expect(await log.list(task.id)).toHaveLength(0);
    const live = new NotifierConsumer(ctx.redis, ctx.keys, ctx.config, handler);
    await live.start();
    try {
      const deadline = Date.now() + 5_000;
      while ((await ctx.redis.xpending(stream, NOTIFIER_GROUP))[0] !== 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await live.stop();
    }
    expect((await ctx.redis.xpending(stream, NOTIFIER_GROUP))[0]).toBe(0);
    const messages = await log.list(task.id);
    expect(messages.map((m) => m.kind)).toEqual(LIVE_TASK_MESSAGE_KINDS);
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
  });
});
