import { parseTaskEvent } from '@vigil/events';
import { sliceJobId } from '@vigil/queue';
import {
  FakeToolGateway,
  newNoopTask,
  observeScriptCalls,
  RedisTestContext,
  type ScriptCall,
  SliceRunnerHarness,
} from '@vigil/testing';
import { IllegalTransitionError, StaleAttemptError } from '@vigil/tasks';

/**
 * A slice that used its steps runs the task's next slice at once in the same Worker when no slice
 * job waits on the shard (docs/ARCHITECTURE.md, "Named transitions"): one `continue_slice` move instead of a
 * hand-off, a job and a claim, written with the steps of its tick (record-steps.lua). With a job waiting, it hands on through the queue as always; the
 * move is fenced and refused for a task that is not running.
 */
describe('slices continued in place', () => {
  const ctx = new RedisTestContext('slice-continuation', {
    SLICE_MAX_STEPS: '2',
    GLOBAL_SPEND_LIMIT_USD: '',
  });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks, lifecycle } = harness;
  const runner = harness.runner(new FakeToolGateway([]), { continueInPlace: true });
  afterAll(() => ctx.close());

  const eventsOf = async (taskId: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.taskId === taskId);
  const jobOf = (taskId: string, slice: number) =>
    ctx.sliceQueue(0).getJob(sliceJobId({ taskId, attempt: 1, slice }));

  /** What the task's entries of record-steps.lua calls were, in order (record-steps.lua's layout). */
  const entriesOf = (calls: ScriptCall[], taskKey: string) =>
    calls
      .filter((call) => call.name === 'record-steps')
      .flatMap((call) => {
        const entries: string[] = [];
        for (let k = 3, a = 3; k < call.keys.length; k += 7) {
          const [entry, count] = [String(call.args[a]), Number(call.args[a + 1])];
          if (call.keys[k] === taskKey) entries.push(entry);
          a += 2 + count;
        }
        return entries;
      });

  it('with no job waiting, one run takes the task through every slice to its claim, with no job between', async () => {
    const { task } = await tasks.create('continued', newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    const continued: number[] = [];
    const outcome = await runner.run(
      { taskId: task.id, attempt: 1, slice: 1, reason: 'next_slice' },
      (slice) => continued.push(slice),
    );

    expect(outcome).toBe('verifying');
    expect(continued).toEqual([1, 2]);
    const record = await tasks.get(task.id);
    expect(record).toMatchObject({ status: 'verifying', sliceCount: 3, completedUnits: 5 });
    // Each slice start is written as a claim writes it; no hand-off to `queued` between them.
    const moves = (await eventsOf(task.id))
      .filter((event) => event.type !== 'task.progress')
      .map((event) => `${event.type}:${event.from}>${event.status}`);
    expect(moves).toEqual([
      'task.created:>queued',
      'task.started:queued>running',
      'task.slice_started:running>running',
      'task.slice_started:running>running',
      'task.verifying:running>verifying',
    ]);
    expect(await jobOf(task.id, 2)).toBeUndefined();
    expect(await jobOf(task.id, 3)).toBeUndefined();
  });

  it('reads the task once, at the claim: a slice continued in place starts from what the last one left', async () => {
    const { task } = await tasks.create('read-once', newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    const observed = observeScriptCalls();
    let outcome;
    try {
      outcome = await runner.run({ taskId: task.id, attempt: 1, slice: 1, reason: 'next_slice' });
    } finally {
      observed.restore();
    }

    expect(outcome).toBe('verifying');
    const calls = observed.calls.filter((call) => call.keys[0] === ctx.keys.task(task.id));
    expect(calls.filter((call) => call.name === 'load-slice')).toHaveLength(1);
    // The claim and the claim of done; each slice continued in place went with the steps.
    expect(calls.filter((call) => call.name === 'transition-task')).toHaveLength(2);
    expect(entriesOf(observed.calls, ctx.keys.task(task.id))).toEqual([
      'step',
      'step',
      'continue',
      'step',
      'step',
      'continue',
      'step',
      'step',
    ]);
    // Every step numbered on from the one before, across the slices: the context went on whole.
    const steps = (await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1)).map(
      (entry) => (JSON.parse(entry) as { step: number; slice: number }).slice,
    );
    expect(steps).toEqual([1, 1, 2, 2, 3, 3]);
    expect(await tasks.get(task.id)).toMatchObject({ sliceCount: 3, completedUnits: 5 });
  });

  /** Another task's first slice waiting on the shard, and a task run by a Worker of `places` places. */
  async function withJobWaiting(name: string, places: number) {
    const { task: waiting } = await tasks.create(`${name}-waiting`, newNoopTask({ input: { steps: 1 } }));
    await harness.slices.publish({ taskId: waiting.id, attempt: 1, slice: 1, reason: 'created' });
    const { task } = await tasks.create(name, newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    const worker = new SliceRunnerHarness(ctx).runner(new FakeToolGateway([]), {
      continueInPlace: true,
      workerConcurrency: places,
    });
    const outcome = await worker.run({ taskId: task.id, attempt: 1, slice: 1, reason: 'next_slice' });
    return { waiting, task, outcome };
  }

  it('with a slice job waiting on the shard and every place of the Worker taken, it hands the task on through the queue', async () => {
    // One place, which this task's job holds.
    const { waiting, task, outcome } = await withJobWaiting('handed-on', 1);

    expect(outcome).toBe('next_slice');
    expect(await tasks.get(task.id)).toMatchObject({ status: 'queued', sliceCount: 1 });
    expect(await jobOf(task.id, 2)).toBeDefined();
    await (await jobOf(waiting.id, 1))?.remove();
  });

  it('with a slice job waiting but a free place in the Worker, it continues: the place takes the job', async () => {
    const { waiting, task, outcome } = await withJobWaiting('free-place', 2);

    expect(outcome).toBe('verifying');
    expect(await tasks.get(task.id)).toMatchObject({ status: 'verifying', sliceCount: 3 });
    expect(await jobOf(task.id, 2)).toBeUndefined();
    expect(await jobOf(waiting.id, 1)).toBeDefined();
  });

  it('continue_slice is fenced by the attempt and refused for a task that is not running', async () => {
    const { task } = await tasks.create('fenced', newNoopTask({ input: { steps: 5 } }));
    const claim = { workerId: 'w1', provider: 'scripted' as const, codeVersion: 'test' };
    await expect(lifecycle.continueSlice(task, { attempt: 1, ...claim })).rejects.toBeInstanceOf(
      IllegalTransitionError,
    );
    await lifecycle.claimSlice(task, { attempt: 1, ...claim });
    await expect(lifecycle.continueSlice(task, { attempt: 2, ...claim })).rejects.toBeInstanceOf(
      StaleAttemptError,
    );
    await lifecycle.pause(task, {});
    await expect(lifecycle.continueSlice(task, { attempt: 1, ...claim })).rejects.toBeInstanceOf(
      IllegalTransitionError,
    );
    expect(await tasks.get(task.id)).toMatchObject({ status: 'paused', sliceCount: 1 });
  });
});
