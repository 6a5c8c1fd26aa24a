import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { InvalidCursorError, TaskRepository } from '@vigil/tasks';

export interface LogPage {
  data: unknown[];
  nextCursor?: string;
}

/** Reads of a task's append-only lists (actions, user messages), oldest first, cursor-paged. */
@Injectable()
export class TaskLogs {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly tasks: TaskRepository,
  ) {}

  async actions(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    await this.tasks.getForTenant(taskId, tenantId);
    return this.page(this.keys.actions(taskId), limit, cursor);
  }

  async messages(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    await this.tasks.getForTenant(taskId, tenantId);
    return this.page(this.keys.messages(taskId), limit, cursor);
  }

  private async page(key: string, limit: number, cursor?: string): Promise<LogPage> {
    if (cursor !== undefined && !/^\d+$/.test(cursor)) throw new InvalidCursorError();
    const start = cursor ? Number(cursor) : 0;
    const raw = await this.redis.lrange(key, start, start + limit);
    const data = raw.slice(0, limit).map((entry) => JSON.parse(entry) as unknown);
    return raw.length > limit ? { data, nextCursor: String(start + limit) } : { data };
  }
}
