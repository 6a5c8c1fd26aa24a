import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { SERVER_CONFIG, type ServerConfig } from '@vigil/config';
import type { Redis } from 'ioredis';
import { OBJECT_STORE, ObjectKeys, type ObjectStore } from '@vigil/object-store';
import { REDIS, RedisKeys } from '@vigil/redis';
import type { TaskRecord } from '../task.types';
import { readTaskForArchive } from './read-task-for-archive';
import { encodeArchive } from './task-archive.codec';
import type { TaskArchivePayload } from './task-archive.types';

const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** What a finished task was archived as: its record (for the removal's guard) and the object's size. */
export interface WrittenArchive {
  task: TaskRecord;
  bytes: number;
}

/** The archive could not be written, or what was read back is not what was written. Nothing is removed. */
export class ArchiveWriteError extends Error {
  constructor(
    readonly taskId: string,
    problem: string,
    cause?: unknown,
  ) {
    super(`archiving task ${taskId}: ${problem}`, { cause });
    this.name = 'ArchiveWriteError';
  }
}

/**
 * Reads everything Redis holds about one task in one round trip (all on the task's shard) and
 * writes it to the object store as one document, then reads it back and checks it
 * (docs/operations.md, "Retention and archives"). Removing the task is the caller's next step,
 * and only after this returned.
 */
@Injectable()
export class TaskArchiveWriter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    /** PUBLIC_BASE_URL: the archived report links its findings' artifacts from it, as the live one. */
    @Optional() @Inject(SERVER_CONFIG) private readonly server?: Pick<ServerConfig, 'publicBaseUrl'>,
  ) {}

  /** The archive's payload as Redis holds it now, or null when the task is gone. */
  collect(taskId: string, expiredAt: number): Promise<TaskArchivePayload | null> {
    return readTaskForArchive(this.redis, this.keys, taskId, expiredAt, this.server?.publicBaseUrl);
  }

  /**
   * Writes the payload to `archive/<tenant>/<task id>.json.gz` and reads it back from the store
   * (`putAndReadBack`): the bytes read must have the SHA-256 of the bytes written. The same payload always gives the
   * same bytes, so a write repeated after a crash leaves the same object.
   */
  async write(payload: TaskArchivePayload): Promise<number> {
    const key = ObjectKeys.archive(payload.tenantId, payload.taskId);
    const bytes = encodeArchive(payload);
    let back: Buffer | null;
    try {
      back = await this.store.putAndReadBack(key, bytes, 'application/gzip');
    } catch (error) {
      throw new ArchiveWriteError(
        payload.taskId,
        `the object store refused the write or its read-back (${String(error)})`,
        error,
      );
    }
    if (!back) throw new ArchiveWriteError(payload.taskId, 'the object is missing right after its write');
    // The SHA-256 of the object read back against the bytes encoded (whose document carries the
    // payload's own checksum, the one every read checks): equal bytes decode as they were encoded.
    if (sha256Of(back) !== sha256Of(bytes))
      throw new ArchiveWriteError(payload.taskId, 'the object read back differs from the one written');
    return bytes.length;
  }
}
