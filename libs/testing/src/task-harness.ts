import {
  TaskContextStore,
  TaskRepository,
  WriteJournal,
  type NewTask,
  type TaskLifecycle,
  type TaskRecord,
} from '@vigil/tasks';
import { redisLifecycle, TEST_CLAIM, type RecordingSlices, type RecordingWakeups } from './lifecycle-fakes';
import type { RedisTestContext } from './redis-test-context';

/**
 * What an integration test sets its tasks up through on the test's real Redis: the repository, the
 * write journal, the context store and a lifecycle on the real transition script whose queues
 * record what it published (`slices`, `wakeups`).
 */
export class TaskHarness {
  readonly tasks: TaskRepository;
  readonly journal: WriteJournal;
  readonly contexts: TaskContextStore;
  readonly lifecycle: TaskLifecycle;
  readonly slices: RecordingSlices;
  readonly wakeups: RecordingWakeups;

  constructor(readonly ctx: RedisTestContext) {
    this.tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    this.journal = new WriteJournal(ctx.redis, ctx.keys);
    this.contexts = new TaskContextStore(ctx.redis, ctx.keys);
    ({ lifecycle: this.lifecycle, slices: this.slices, wakeups: this.wakeups } = redisLifecycle(ctx));
  }

  /** Creates `task` under `id` and claims its first slice (attempt 1) as a test Worker: the record then. */
  async runningTask(id: string, task: NewTask): Promise<TaskRecord> {
    const { task: created } = await this.tasks.create(id, task);
    await this.lifecycle.claimSlice(created, { attempt: 1, ...TEST_CLAIM });
    return (await this.tasks.get(id))!;
  }
}
