import type { Redis } from 'ioredis';
import { masterNodes } from './cluster-nodes';

/** The words Redis starts its refusal with when `maxmemory` is reached under `noeviction`. */
const OUT_OF_MEMORY = "OOM command not allowed when used memory > 'maxmemory'";

/**
 * Whether Redis refused a write because it is full (docs/operations.md, "A full Redis"): the
 * command's own reply, the same reply from inside a script (Redis 7 appends `script: …`), or a
 * MULTI that Redis discarded (EXECABORT) because one of its commands was refused so.
 */
export function isOutOfMemory(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.message.includes(OUT_OF_MEMORY)) return true;
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  return Array.isArray(previous) && previous.some(isOutOfMemory);
}

/** What INFO memory says of the store: one server, or the sum (and the fullest) of a cluster's masters. */
export interface StoreMemory {
  /** `used_memory`, summed over the masters. */
  usedBytes: number;
  /** `maxmemory` summed over the masters; 0 when any master has no limit. */
  maxBytes: number;
  /** True when some master refuses writes: past its `maxmemory` with nothing it may evict. */
  full: boolean;
}

interface NodeMemory {
  used: number;
  max: number;
  full: boolean;
}

function field(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/**
 * Redis refuses a write that may need memory once `used_memory` less the memory it does not count
 * for eviction (replication and AOF buffers) is above `maxmemory` and its policy has nothing to
 * evict. Vigil runs under `noeviction` (BullMQ requires it), where that is exactly when; under an
 * evicting policy the numbers cannot say, and a refused write is the only sign (the Watcher notes
 * those too).
 */
export function nodeMemoryOf(info: string): NodeMemory {
  const used = Number(field(info, 'used_memory') ?? 0);
  const max = Number(field(info, 'maxmemory') ?? 0);
  const uncounted = Number(field(info, 'mem_not_counted_for_evict') ?? 0);
  const policy = field(info, 'maxmemory_policy') ?? 'noeviction';
  return { used, max, full: max > 0 && policy === 'noeviction' && used - uncounted > max };
}

/** Reads INFO memory of every master: a read, so it answers while the store is full. */
export async function storeMemory(redis: Redis): Promise<StoreMemory> {
  const infos = await Promise.all(
    masterNodes(redis).map((node) => node.call('INFO', 'memory') as Promise<string>),
  );
  const nodes = infos.map(nodeMemoryOf);
  return {
    usedBytes: nodes.reduce((sum, node) => sum + node.used, 0),
    maxBytes: nodes.some((node) => node.max === 0) ? 0 : nodes.reduce((sum, node) => sum + node.max, 0),
    full: nodes.some((node) => node.full),
  };
}

/** `errorstat_OOM` of INFO errorstats: how many replies this server refused as full since it started. */
export function oomRefusalsOf(info: string): number {
  return Number(/^errorstat_OOM:count=(\d+)/m.exec(info)?.[1] ?? 0);
}

/**
 * How many writes Redis has refused because it was full, since each master started, summed. A
 * count that grew between two looks says writes were refused in between, even when the store was
 * under its limit at both looks (a Redis at its limit refuses a write now and takes the next).
 */
export async function refusedWrites(redis: Redis): Promise<number> {
  const infos = await Promise.all(
    masterNodes(redis).map((node) => node.call('INFO', 'errorstats') as Promise<string>),
  );
  return infos.reduce((sum, info) => sum + oomRefusalsOf(info), 0);
}
