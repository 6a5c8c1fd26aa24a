import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { DeadWorkerDetector } from './dead-worker.detector';
import { Decision, Suspicion, TaskSupervisor } from './task-supervisor';

export interface SweepReport {
  inspected: number;
  decisions: Partial<Record<Decision, number>>;
  deadWorkers: number;
}

const BATCH = 500;
const PARALLEL = 16;

/**
 * One Watcher tick. Work is found only through indexes (heartbeat deadlines, verifying, expiry),
 * so a sweep costs the same however many healthy tasks exist; each replica sweeps independently
 * and the recovery lease plus fenced transitions keep replicas from doing any task's work twice.
 */
@Injectable()
export class SupervisorSweep {
  private readonly logger = new Logger(SupervisorSweep.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly supervisor: TaskSupervisor,
    private readonly deadWorkers: DeadWorkerDetector,
  ) {}

  async tick(now = Date.now()): Promise<SweepReport> {
    const report: SweepReport = { inspected: 0, decisions: {}, deadWorkers: 0 };
    const gone = await this.deadWorkers.find().catch((error: unknown) => {
      // Without CLIENT LIST (managed Redis may rename it) crashes are still found by staleness.
      this.logger.warn(`dead-worker detection unavailable: ${String(error)}`);
      return new Set<string>();
    });
    report.deadWorkers = gone.size;
    const stillHolding = new Set<string>();
    for (const shard of this.keys.allShards()) {
      const suspects = new Map<string, Suspicion>();
      const replies = (await this.redis
        .pipeline()
        .zrangebyscore(this.keys.expiryIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .zrangebyscore(this.keys.verifyingIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .zrangebyscore(this.keys.deadlineIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .exec()) as [Error | null, string[]][];
      const [expired, verifying, due] = replies.map(([error, ids]) => {
        if (error) throw error;
        return ids;
      });
      for (const id of due) suspects.set(id, 'deadline');
      for (const id of verifying) suspects.set(id, 'verifying');
      if (gone.size > 0) {
        for (const { taskId, workerId } of await this.deadWorkers.tasksOf(shard, gone)) {
          suspects.set(taskId, 'worker_gone');
          stillHolding.add(workerId);
        }
      }
      for (const id of expired) suspects.set(id, 'expired');
      await this.inspectAll(suspects, report, now);
    }
    // A gone worker is forgotten once it holds no active task: until then each sweep looks again.
    await this.deadWorkers.forget(new Set([...gone].filter((id) => !stillHolding.has(id))));
    if (report.inspected > 0) this.logger.log(`sweep: ${JSON.stringify(report)}`);
    return report;
  }

  private async inspectAll(
    suspects: Map<string, Suspicion>,
    report: SweepReport,
    now: number,
  ): Promise<void> {
    const queue = [...suspects];
    const workers = Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [id, suspicion] = next;
        report.inspected++;
        try {
          const decision = await this.supervisor.inspect(id, suspicion, now);
          report.decisions[decision] = (report.decisions[decision] ?? 0) + 1;
        } catch (error) {
          // Logged and left in its index: the next sweep looks at it again.
          this.logger.error(`inspecting task ${id} (${suspicion}) failed: ${String(error)}`);
        }
      }
    });
    await Promise.all(workers);
  }
}
