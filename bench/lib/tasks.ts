import { Queue } from 'bullmq';
import { bullConnection, TurnQueue } from '@vigil/queue';
import type { NewTask, TaskRecord, TaskRepository, TaskStatus } from '@vigil/tasks';
import type { BenchContext } from './context';

export const BENCH_TENANT = 'bench';

/** A `noop` task as POST /v1/tasks would create it (kind defaults, a one-model policy). */
export function noopTask(steps: number, stepMs?: number): NewTask {
  return {
    tenantId: BENCH_TENANT,
    kind: 'noop',
    title: `noop: ${steps} steps`,
    input: stepMs === undefined ? { steps } : { steps, stepMs },
    exitCriteria: [{ check: 'all_steps_recorded', expected: steps }],
    budgetUsd: 3,
    model: 'opus',
    totalUnits: steps,
    sandbox: true,
    notify: {},
    agent: { policy: ['opus', 'gemini', 'opus', 'gemini'] },
    codeVersion: 'bench',
  };
}

/** The real TurnQueue over BullMQ queues of the bench's prefix (one per shard). */
export function turnQueue(ctx: BenchContext): { turns: TurnQueue; close: () => Promise<void> } {
  const queues = ctx.keys.allShards().map(
    (shard) =>
      new Queue(ctx.keys.turnQueueName(shard), {
        connection: bullConnection(ctx.config.redisUrl),
        prefix: ctx.config.keyPrefix,
      }),
  );
  return {
    turns: new TurnQueue(queues, ctx.keys),
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/** Alternates one task between `running` and `queued` through transitionTask, as slices do. */
export class Flipper {
  private status: TaskStatus = 'running';

  constructor(
    private readonly repo: TaskRepository,
    readonly task: Pick<TaskRecord, 'id' | 'tenantId'>,
  ) {}

  async flip(): Promise<void> {
    const to: TaskStatus = this.status === 'running' ? 'queued' : 'running';
    await this.repo.transition(this.task, to, { attempt: 1, from: [this.status] });
    this.status = to;
  }
}
