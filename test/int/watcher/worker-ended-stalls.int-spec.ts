import { Registry } from 'prom-client';
import { buildTimeline } from '@vigil/dashboard';
import { METRICS_REGISTRY } from '@vigil/platform';
import { newNoopTask, RedisTestContext, TEST_CLAIM, WatcherHarness } from '@vigil/testing';

/**
 * A stall its Worker names itself (`looping`, `hung_call`, `tool_error`: docs/ARCHITECTURE.md,
 * "Stalls, diagnosed") is counted in vigil_recoveries_total by the Watcher that takes the attempt
 * on, like the stalls it names itself, and shows on the dashboard's timeline with its reason.
 */
describe('stalls a Worker ends', () => {
  const ctx = new RedisTestContext('worker-stalls');
  const watcher = new WatcherHarness(ctx);
  const { tasks, lifecycle } = watcher;
  beforeAll(() => watcher.start());
  afterAll(() => ctx.close());

  const recoveries = async (reason: string): Promise<number> => {
    const metric = await watcher.app
      .get<Registry>(METRICS_REGISTRY)
      .getSingleMetric('vigil_recoveries_total')
      ?.get();
    return metric?.values.find((value) => value.labels.reason === reason)?.value ?? 0;
  };

  it('counts a looping attempt by its reason when the retry is published, once', async () => {
    const { task } = await tasks.create('loops-1', newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const detail = 'noop_step was called 5 times with the same arguments {} (LOOP_REPEAT_LIMIT 5)';
    await lifecycle.failAttempt(task, { attempt: 1, reason: 'looping', detail, during: 'slice' });
    const before = await recoveries('looping');

    expect(await watcher.supervisor.inspect(task.id, 'deadline')).toBe('recovered');
    const retried = (await tasks.get(task.id))!;
    expect(retried).toMatchObject({ status: 'queued', attempt: 2, retryCount: 1 });
    expect(retried.retryContext).toMatchObject({ reason: 'looping', detail });
    expect(await recoveries('looping')).toBe(before + 1);
    // Looked at again, the queued task is not counted twice.
    await watcher.supervisor.inspect(task.id, 'deadline');
    expect(await recoveries('looping')).toBe(before + 1);

    const timeline = buildTimeline(retried, []);
    expect(timeline.find((entry) => entry.source === 'retry')?.reason).toContain(`looping · ${detail}`);
  });
});
