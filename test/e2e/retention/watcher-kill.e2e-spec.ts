import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileObjectStore, ObjectKeys } from '@vigil/object-store';
import {
  encodeArchive,
  StepRecorder,
  TaskArchiveWriter,
  TaskRepository,
  type TaskArchivePayload,
} from '@vigil/tasks';
import {
  newNoopTask,
  RedisTestContext,
  redisLifecycle,
  stepAction,
  TEST_CLAIM,
  VigilStack,
} from '@vigil/testing';

const TASKS = 300;

/** A Watcher SIGKILLed in the middle of an archive batch: no task lost, none half-deleted, none archived twice differently. */
describe('retention survives a killed Watcher', () => {
  const directory = mkdtempSync(join(tmpdir(), 'vigil-archive-kill-'));
  const ctx = new RedisTestContext('archive-kill', { TASK_RETENTION_MS: '0' });
  const store = new FileObjectStore(directory);
  afterAll(async () => {
    await ctx.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('archives every task exactly as it was after a SIGKILL mid-batch and a second Watcher', async () => {
    const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
    const { lifecycle } = redisLifecycle(ctx);
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const { task } = await tasks.create(
        TaskRepository.newTaskId(),
        newNoopTask({ title: `finished ${i}` }),
      );
      await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: stepAction('noop_step', 'step:1', { i }, { ok: i }),
        succeeded: true,
        currentStep: 'noop_step',
      });
      await lifecycle.stop(task);
      ids.push(task.id);
    }
    // What each archive must hold: collected before any Watcher runs, at the score retention gave it.
    const writer = new TaskArchiveWriter(ctx.redis, ctx.keys, store);
    const expected = new Map<string, TaskArchivePayload>();
    for (const id of ids) {
      const expiredAt = Number(await ctx.redis.zscore(ctx.keys.retentionIndex(0), id));
      expected.set(id, (await writer.collect(id, expiredAt))!);
    }

    const stack = new VigilStack(ctx, {
      TASK_RETENTION_MS: '0',
      WATCHER_INTERVAL_MS: '50',
      ARCHIVE_BATCH_SIZE: '5',
      OBJECT_STORE_URL: `file://${directory}`,
    });
    const first = await stack.start('watcher');
    const gone = async () =>
      (await Promise.all(ids.map((id) => ctx.redis.exists(ctx.keys.task(id))))).filter((n) => n === 0).length;
    const deadline = Date.now() + 60_000;
    while ((await gone()) < 20 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    first.signal('SIGKILL');
    await first.exited();
    const archivedBeforeKill = await gone();
    expect(archivedBeforeKill).toBeGreaterThanOrEqual(20);
    expect(archivedBeforeKill).toBeLessThan(TASKS);

    // Nothing half-deleted: a task still in Redis is whole, one gone has left every key.
    for (const id of ids) {
      const present = await Promise.all(
        [ctx.keys.task(id), ctx.keys.actions(id), ctx.keys.messages(id)].map((k) => ctx.redis.exists(k)),
      );
      const record = present[0] === 1;
      expect([id, present[1] === 1]).toEqual([id, record]);
    }

    await stack.start('watcher');
    const end = Date.now() + 120_000;
    while ((await gone()) < TASKS && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await gone()).toBe(TASKS);
    for (const id of ids) {
      const bytes = await store.get(ObjectKeys.archive('acme', id));
      expect([id, bytes?.equals(encodeArchive(expected.get(id)!))]).toEqual([id, true]);
    }
    expect(await ctx.redis.zcard(ctx.keys.retentionIndex(0))).toBe(0);
  }, 240_000);
});
