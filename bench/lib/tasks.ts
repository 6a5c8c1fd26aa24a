import { Queue } from 'bullmq';
import { bullConnection, SliceQueue } from '@vigil/queue';
import type { Redis } from 'ioredis';
import type { VigilConfig } from '@vigil/config';
import type { RedisKeys } from '@vigil/redis';
import {
  redisTaskLifecycle,
  type NewTask,
  type TaskLifecycle,
  type TaskRecord,
  type TaskStatus,
} from '@vigil/tasks';
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

/** The real SliceQueue over BullMQ queues of the bench's prefix (one per shard). */
export function sliceQueue(ctx: BenchContext): { slices: SliceQueue; close: () => Promise<void> } {
  const queues = ctx.keys.allShards().map(
    (shard) =>
      new Queue(ctx.keys.sliceQueueName(shard), {
        connection: bullConnection(ctx.config.redisUrl),
        prefix: ctx.config.keyPrefix,
      }),
  );
  return {
    slices: new SliceQueue(queues, ctx.keys),
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/** The task lifecycle on a bench connection; its follow-ups go nowhere (a bench drives the queues itself). */
export function benchLifecycle(redis: Redis, keys: RedisKeys, config: VigilConfig): TaskLifecycle {
  const nowhere = { publish: async () => undefined, republish: async () => undefined };
  return redisTaskLifecycle(redis, keys, config, { slices: nowhere, wakeups: nowhere });
}

/** What a bench Worker claims its slices as. */
export const BENCH_CLAIM = { workerId: 'bench', provider: 'scripted', codeVersion: 'bench' } as const;

/** Alternates one task between `running` and `queued` as slices do: a claim, then a hand-off. */
export class Flipper {
  private status: TaskStatus = 'running';
  private slice = 1;

  constructor(
    private readonly lifecycle: TaskLifecycle,
    readonly task: Pick<TaskRecord, 'id' | 'tenantId'>,
  ) {}

  async flip(): Promise<void> {
    if (this.status === 'running') {
      await this.lifecycle.handOffSlice(this.task, { attempt: 1, slice: this.slice++ });
      this.status = 'queued';
    } else {
      await this.lifecycle.claimSlice(this.task, { attempt: 1, ...BENCH_CLAIM });
      this.status = 'running';
    }
  }
}
