import type { Redis } from 'ioredis';

/**
 * What a key under a bench's prefix is, for the memory bench: one task's own keys (its record,
 * actions, journal, outputs, messages…), the BullMQ jobs of the shard's queues (job hashes, their
 * state sets, the queue's bookkeeping), BullMQ's own event stream per queue (capped at 10,000 by
 * BullMQ), the shard's task event stream (capped at EVENT_STREAM_MAXLEN), the shard's indexes, or
 * anything else (named in the report).
 */
export type KeyClass = 'task' | 'jobs' | 'queueEvents' | 'taskEvents' | 'indexes' | 'other';

export const KEY_CLASSES: readonly KeyClass[] = [
  'task',
  'jobs',
  'queueEvents',
  'taskEvents',
  'indexes',
  'other',
];

export interface MemorySnapshot {
  /** `MEMORY USAGE … SAMPLES 0` summed by class. */
  bytes: Record<KeyClass, number>;
  /** Bytes of each task's own keys, by task id. */
  byTask: Map<string, number>;
  /** Entries in the shard's task event stream. */
  taskEventEntries: number;
  /** Keys of class `other`, with their bytes (few, and worth seeing). */
  other: Record<string, number>;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The class of a key of `prefix` (shard tags `{s<n>}`), and the task it belongs to. */
export function classifyKey(prefix: string, key: string): { kind: KeyClass; taskId?: string } {
  const base = `^${escape(prefix)}:`;
  const task = new RegExp(`${base}\\{s\\d+\\}:task:([^:]+)(?::|$)`).exec(key);
  if (task) return { kind: 'task', taskId: task[1] };
  if (new RegExp(`${base}(?:turns|wake|webhooks)\\{s\\d+\\}:events$`).test(key))
    return { kind: 'queueEvents' };
  if (new RegExp(`${base}(?:turns|wake|webhooks)\\{s\\d+\\}:`).test(key)) return { kind: 'jobs' };
  if (new RegExp(`${base}\\{s\\d+\\}:events$`).test(key)) return { kind: 'taskEvents' };
  if (new RegExp(`${base}\\{s\\d+\\}:idx:`).test(key)) return { kind: 'indexes' };
  return { kind: 'other' };
}

/**
 * Every key under `prefix` (SCAN), each measured with `MEMORY USAGE key SAMPLES 0` (exact: every
 * element of a list, hash or stream counted, not a sample), summed by class and by task.
 */
export async function memorySnapshot(redis: Redis, prefix: string): Promise<MemorySnapshot> {
  const bytes = Object.fromEntries(KEY_CLASSES.map((kind) => [kind, 0])) as Record<KeyClass, number>;
  const byTask = new Map<string, number>();
  const other: Record<string, number> = {};
  let taskEventEntries = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    const replies = (await pipeline.exec()) ?? [];
    for (const [i, key] of keys.entries()) {
      const [error, used] = replies[i];
      if (error) throw error;
      // A key deleted between SCAN and MEMORY USAGE answers null.
      if (used === null) continue;
      const size = Number(used);
      const { kind, taskId } = classifyKey(prefix, key);
      bytes[kind] += size;
      if (taskId) byTask.set(taskId, (byTask.get(taskId) ?? 0) + size);
      if (kind === 'other') other[key.slice(prefix.length + 1)] = size;
      if (kind === 'taskEvents') taskEventEntries += await redis.xlen(key);
    }
  } while (cursor !== '0');
  return { bytes, byTask, taskEventEntries, other };
}

/** Bytes each class grew by from `before` to `after`. */
export function growth(before: MemorySnapshot, after: MemorySnapshot): Record<KeyClass, number> {
  return Object.fromEntries(
    KEY_CLASSES.map((kind) => [kind, after.bytes[kind] - before.bytes[kind]]),
  ) as Record<KeyClass, number>;
}
