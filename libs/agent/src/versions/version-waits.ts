import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { KindRegistry, runnableVersions } from '@vigil/kinds';
import { REDIS, RedisKeys } from '@vigil/redis';
import { IllegalTransitionError, TaskLifecycle, TaskRepository } from '@vigil/tasks';
import { WorkerKinds } from './worker-kinds';

/** How often a Worker says what it runs and takes up the tasks that waited for it. */
export const ADVERTISE_INTERVAL_MS = 5_000;
/** How long an advertisement holds: three missed refreshes and the Worker counts as gone. */
export const ADVERTISEMENT_VALID_MS = 3 * ADVERTISE_INTERVAL_MS;

/**
 * A Worker's side of kind versions (docs/kinds.md, "Versions"): at boot and every
 * ADVERTISE_INTERVAL_MS it advertises the kinds and versions it runs, then continues each task
 * of its shards' kind-version waits that one of its kinds runs. Several Workers racing for one
 * task are settled by the transition: one continues it, the others are refused.
 */
@Injectable()
export class VersionWaits implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(VersionWaits.name);
  private timer?: NodeJS.Timeout;
  private readonly runs: Record<string, number[]>;

  constructor(
    registry: KindRegistry,
    private readonly workers: WorkerKinds,
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject('WORKER_ID') private readonly workerId: string,
  ) {
    this.runs = runnableVersions(registry.all());
  }

  async onModuleInit(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.logger.warn(`kind versions: ${String(error)}`));
    }, ADVERTISE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.workers.withdraw(this.workerId);
  }

  /** Advertises, then continues what waited for a version this Worker runs; the ids continued. */
  async tick(): Promise<string[]> {
    await this.workers.advertise(this.workerId, this.runs, ADVERTISEMENT_VALID_MS);
    const continued: string[] = [];
    for (const shard of this.keys.allShards()) {
      const waits = await this.redis.hgetall(this.keys.kindVersionWaits(shard));
      for (const [taskId, wanted] of Object.entries(waits)) {
        const at = wanted.lastIndexOf('@');
        if (!this.runs[wanted.slice(0, at)]?.includes(Number(wanted.slice(at + 1)))) continue;
        if (await this.continueTask(taskId)) continued.push(taskId);
      }
    }
    return continued;
  }

  private async continueTask(taskId: string): Promise<boolean> {
    const task = await this.tasks.get(taskId);
    if (!task) return false;
    try {
      await this.lifecycle.continueOnKindVersion(task);
    } catch (error) {
      // Another Worker continued it, or a person stopped it meanwhile.
      if (error instanceof IllegalTransitionError) return false;
      throw error;
    }
    this.logger.log(`task ${taskId}: continues on ${task.kind} version ${task.kindVersion}`);
    return true;
  }
}
