import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys, ScriptRunner } from '@vigil/redis';
import type { TaskRecord } from '@vigil/tasks';

/** The Watcher's own small atomic writes (everything else goes through transitionTask). */
@Injectable()
export class SupervisorScripts {
  readonly scripts: ScriptRunner;

  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.scripts = new ScriptRunner(redis, join(__dirname, 'lua'), [
      { name: 'reconcile-journal', numberOfKeys: 4 },
      { name: 'touch-index', numberOfKeys: 2 },
    ]);
  }

  async recordReconciled(task: TaskRecord, key: string, entry: unknown, output: unknown): Promise<boolean> {
    const id = task.id;
    const done = await this.scripts.run<number>(
      'reconcile-journal',
      [this.keys.task(id), this.keys.journal(id), this.keys.doneSteps(id), this.keys.outputs(id)],
      [task.attempt, key, JSON.stringify(entry), JSON.stringify(output)],
    );
    return done === 1;
  }

  async touch(task: TaskRecord, index: 'deadline' | 'verifying', score: number): Promise<boolean> {
    const shard = this.keys.shardOf(task.id);
    const key = index === 'deadline' ? this.keys.deadlineIndex(shard) : this.keys.verifyingIndex(shard);
    const moved = await this.scripts.run<number>(
      'touch-index',
      [this.keys.task(task.id), key],
      [task.id, task.status, String(task.attempt), score],
    );
    return moved === 1;
  }
}
