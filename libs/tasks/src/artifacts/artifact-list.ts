import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ReadableTasks } from '../archive/readable-tasks';
import { type ArtifactEntry, decodeArtifactEntries } from './artifact.types';

/**
 * A task's artifact list (docs/api.md, "Artifacts"): live from Redis (record-step.lua appends it
 * with each step), or, for an archived task, from the archive, which kept it as stored.
 */
@Injectable()
export class ArtifactList {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly reads: ReadableTasks,
  ) {}

  /** The tenant's task's artifacts, oldest first; TaskNotFoundError when it has no such task. */
  async forTenant(tenantId: string, taskId: string): Promise<ArtifactEntry[]> {
    const { archive } = await this.reads.find(tenantId, taskId);
    if (archive) return decodeArtifactEntries(archive.artifacts);
    return this.live(taskId);
  }

  /** The list Redis holds for a task (empty when it holds none). */
  async live(taskId: string): Promise<ArtifactEntry[]> {
    return decodeArtifactEntries(await this.redis.lrange(this.keys.artifacts(taskId), 0, -1));
  }
}
