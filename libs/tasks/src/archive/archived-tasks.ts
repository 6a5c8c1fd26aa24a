import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InvalidObjectKeyError, OBJECT_STORE, ObjectKeys, type ObjectStore } from '@vigil/object-store';
import { decodeTask } from '../task-codec';
import { InvalidCursorError } from '../task-errors';
import type { TaskRecord } from '../task.types';
import { ArchiveUnreadableError, decodeArchive } from './task-archive.codec';
import type { TaskArchivePayload } from './task-archive.types';

/** A page of a tenant's archived tasks, in task-id order; the cursor is the last task's id. */
export interface ArchivedTaskPage {
  data: TaskRecord[];
  nextCursor?: string;
}

/** The archive's key, or null when the ids cannot name an object (such a task has no archive). */
function archiveKey(tenantId: string, taskId: string): string | null {
  try {
    return ObjectKeys.archive(tenantId, taskId);
  } catch (error) {
    if (error instanceof InvalidObjectKeyError) return null;
    throw error;
  }
}

const archiveIds = (keys: string[]): string[] =>
  keys.map((key) => ObjectKeys.taskIdOfArchive(key)).filter((id): id is string => id !== null);

/**
 * The task record an archive holds, decoded as a live one is, marked `archived` (docs/api.md,
 * "Archived tasks"). Throws ArchiveUnreadableError when the stored hash is not a task record.
 */
export function archivedTaskRecord(payload: TaskArchivePayload): TaskRecord {
  let task: TaskRecord | null;
  try {
    task = decodeTask(payload.record);
  } catch (error) {
    throw new ArchiveUnreadableError(
      payload.taskId,
      `its record does not decode (${(error as Error).message})`,
    );
  }
  if (!task) throw new ArchiveUnreadableError(payload.taskId, 'it holds no task record');
  return { ...task, archived: true };
}

/**
 * Finished tasks read back from the object store (docs/api.md, "Archived tasks"): found only under
 * the asking tenant's own prefix, so another tenant's archive is never read. An archive that
 * exists but cannot be trusted is an ArchiveUnreadableError (502 naming the task), never "not
 * found": the task existed, its data must not silently vanish.
 */
@Injectable()
export class ArchivedTasks {
  private readonly logger = new Logger(ArchivedTasks.name);
  private unboundReported = false;

  constructor(
    // Optional because every app loads TasksModule, and only the API and the Watcher bind an
    // object store (ObjectStoreModule); a process without one never finds an archive (said once).
    @Optional() @Inject(OBJECT_STORE) private readonly store?: ObjectStore,
  ) {}

  /** The task's archive for this tenant, checked end to end; null when there is none. */
  async find(tenantId: string, taskId: string): Promise<TaskArchivePayload | null> {
    const key = archiveKey(tenantId, taskId);
    const store = this.boundStore();
    if (key === null || !store) return null;
    const bytes = await store.get(key);
    return bytes === null ? null : this.checked(tenantId, taskId, bytes);
  }

  /**
   * A page of the tenant's archived tasks in task-id order (the store lists keys in byte order);
   * `cursor` is the last task id of the previous page. A listed archive that then cannot be read
   * (gone, or failing its checksum) fails the page naming the task rather than leaving it out.
   */
  async list(tenantId: string, limit: number, cursor?: string): Promise<ArchivedTaskPage> {
    const after = cursor === undefined ? undefined : archiveKey(tenantId, cursor);
    if (after === null) throw new InvalidCursorError();
    const store = this.boundStore();
    if (!store) return { data: [] };
    const prefix = ObjectKeys.archivePrefix(tenantId);
    let listed = await store.list(prefix, { ...(after ? { after } : {}), limit });
    let taskIds = archiveIds(listed.keys);
    // A page of keys that name no archive (none are written there) must not end the listing early.
    while (taskIds.length === 0 && listed.next !== undefined && listed.keys.length > 0) {
      listed = await store.list(prefix, { after: listed.keys[listed.keys.length - 1], limit });
      taskIds = archiveIds(listed.keys);
    }
    const data = await Promise.all(
      taskIds.map(async (taskId) => {
        const bytes = await store.get(ObjectKeys.archive(tenantId, taskId));
        if (bytes === null) throw new ArchiveUnreadableError(taskId, 'it was listed, then not found');
        return archivedTaskRecord(this.checked(tenantId, taskId, bytes));
      }),
    );
    const last = taskIds.at(-1);
    return listed.next !== undefined && last !== undefined ? { data, nextCursor: last } : { data };
  }

  private checked(tenantId: string, taskId: string, bytes: Buffer): TaskArchivePayload {
    const payload = decodeArchive(taskId, bytes);
    // The key is under the tenant's prefix; the document must say the same, or it is not this tenant's.
    if (payload.tenantId !== tenantId || archivedTaskRecord(payload).tenantId !== tenantId)
      throw new ArchiveUnreadableError(taskId, 'it names another tenant than the one it is stored under');
    return payload;
  }

  private boundStore(): ObjectStore | undefined {
    if (!this.store && !this.unboundReported) {
      this.unboundReported = true;
      this.logger.warn('no object store is bound (OBJECT_STORE): archived tasks are not looked up');
    }
    return this.store;
  }
}
