import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { DeadWorkerDetector, GoneWorkers } from './dead-worker.detector';
import { StoreWatch } from './store-watch';
import { InspectionOutcome, TaskSupervisor } from './task-supervisor';
import { Evidence, Suspicion } from './watcher-decision';

export interface SweepReport {
  inspected: number;
  decisions: Partial<Record<InspectionOutcome, number>>;
  deadWorkers: number;
}

const BATCH = 500;
const PARALLEL = 16;

type Suspects = Map<string, { suspicion: Suspicion; evidence: Evidence }>;

/**
 * One Watcher tick. Work is found only through indexes (heartbeat deadlines, call deadlines,
 * verifying, expiry), so a sweep costs the same however many healthy tasks exist; each replica
 * sweeps independently and the recovery lease plus fenced transitions keep replicas from doing
 * any task's work twice. `livenessTick` is the cheap check that runs far more often: it looks only
 * for Worker processes that died, so a crash is recovered in seconds, not at the next sweep.
 */
@Injectable()
export class SupervisorSweep {
  private readonly logger = new Logger(SupervisorSweep.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly supervisor: TaskSupervisor,
    private readonly deadWorkers: DeadWorkerDetector,
    private readonly store: StoreWatch,
  ) {}

  async tick(now = Date.now()): Promise<SweepReport> {
    const report: SweepReport = { inspected: 0, decisions: {}, deadWorkers: 0 };
    const store = await this.store.look(now);
    const gone = await this.findGone(now);
    report.deadWorkers = gone.size;
    const stillHolding = new Set<string>();
    for (const shard of this.keys.allShards()) {
      const suspects: Suspects = new Map();
      const replies = (await this.redis
        .pipeline()
        .zrangebyscore(this.keys.expiryIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .zrangebyscore(this.keys.verifyingIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .zrangebyscore(this.keys.deadlineIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .zrangebyscore(this.keys.callDeadlineIndex(shard), '-inf', now, 'LIMIT', 0, BATCH)
        .exec()) as [Error | null, string[]][];
      const [expired, verifying, due, overran] = replies.map(([error, ids]) => {
        if (error) throw error;
        return ids;
      });
      for (const id of overran) suspects.set(id, { suspicion: 'hung_call', evidence: {} });
      for (const id of due) suspects.set(id, { suspicion: 'deadline', evidence: {} });
      for (const id of verifying) suspects.set(id, { suspicion: 'verifying', evidence: {} });
      await this.addGone(shard, gone, suspects, stillHolding);
      for (const id of expired) suspects.set(id, { suspicion: 'expired', evidence: {} });
      await this.inspectAll(suspects, report, now);
    }
    await this.forgetIdle(gone, stillHolding);
    // While Redis is full every decision is `store_full`: said once by the StoreWatch, not every sweep.
    if (report.inspected > 0 && !store.full) this.logger.log(`sweep: ${JSON.stringify(report)}`);
    return report;
  }

  /** Only the tasks of Worker processes that died: cheap enough to run every second. */
  async livenessTick(now = Date.now()): Promise<SweepReport> {
    const report: SweepReport = { inspected: 0, decisions: {}, deadWorkers: 0 };
    const store = await this.store.look(now);
    const gone = await this.findGone(now);
    report.deadWorkers = gone.size;
    if (gone.size === 0) return report;
    const stillHolding = new Set<string>();
    for (const shard of this.keys.allShards()) {
      const suspects: Suspects = new Map();
      await this.addGone(shard, gone, suspects, stillHolding);
      await this.inspectAll(suspects, report, now);
    }
    await this.forgetIdle(gone, stillHolding);
    if (report.inspected > 0 && !store.full) this.logger.log(`liveness: ${JSON.stringify(report)}`);
    return report;
  }

  private async findGone(now: number): Promise<GoneWorkers> {
    return this.deadWorkers.find(now).catch((error: unknown) => {
      // Without CLIENT LIST (managed Redis may rename it) crashes are still found by staleness.
      this.logger.warn(`dead-worker detection unavailable: ${String(error)}`);
      return new Map<string, number>();
    });
  }

  private async addGone(
    shard: number,
    gone: GoneWorkers,
    suspects: Suspects,
    holding: Set<string>,
  ): Promise<void> {
    if (gone.size === 0) return;
    for (const { taskId, workerId } of await this.deadWorkers.tasksOf(shard, gone)) {
      suspects.set(taskId, { suspicion: 'worker_gone', evidence: { workerGoneSince: gone.get(workerId) } });
      holding.add(workerId);
    }
  }

  /** A gone worker is forgotten once it holds no active task: until then each check looks again. */
  private async forgetIdle(gone: GoneWorkers, stillHolding: Set<string>): Promise<void> {
    await this.deadWorkers.forget([...gone.keys()].filter((id) => !stillHolding.has(id)));
  }

  private async inspectAll(suspects: Suspects, report: SweepReport, now: number): Promise<void> {
    const queue = [...suspects];
    const workers = Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [id, { suspicion, evidence }] = next;
        report.inspected++;
        try {
          const decision = await this.supervisor.inspect(id, suspicion, now, evidence);
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
