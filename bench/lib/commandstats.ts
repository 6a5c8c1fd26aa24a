import type { Redis } from 'ioredis';

/** Calls per command name, as `INFO commandstats` reports them (subcommands as `client|list`). */
export type CommandCounts = Record<string, number>;

/** Top-level commands that run a server-side script; the commands the script calls count apart. */
export const SCRIPT_COMMANDS = ['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro'];

export function parseCommandStats(info: string): CommandCounts {
  const counts: CommandCounts = {};
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) counts[match[1].toLowerCase()] = Number(match[2]);
  }
  return counts;
}

/** Calls made between two snapshots; `info` (the measurement itself) is left out by default. */
export function diffCommandStats(
  before: CommandCounts,
  after: CommandCounts,
  ignore: readonly string[] = ['info'],
): CommandCounts {
  const delta: CommandCounts = {};
  for (const [name, calls] of Object.entries(after)) {
    if (ignore.includes(name)) continue;
    const diff = calls - (before[name] ?? 0);
    if (diff > 0) delta[name] = diff;
  }
  return delta;
}

export function totalCalls(counts: CommandCounts): number {
  return Object.values(counts).reduce((sum, calls) => sum + calls, 0);
}

export function scaleCounts(counts: CommandCounts, divisor: number): CommandCounts {
  return Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, calls]) => [name, Number((calls / divisor).toFixed(3))]),
  );
}

export async function readCommandStats(redis: Redis): Promise<CommandCounts> {
  return parseCommandStats(await redis.info('commandstats'));
}

export interface CommandMeasurement {
  /** Commands per operation by name, from the cleanest window. */
  perOp: CommandCounts;
  /** All commands per operation (top-level plus those scripts called). */
  totalPerOp: number;
  /** Script calls (EVALSHA/EVAL) per operation: each one a single top-level command. */
  scriptCallsPerOp: number;
  /** Windows whose totals matched the cleanest one: >1 means the count is reproducible. */
  agreeingWindows: number;
  windows: number;
}

/**
 * Redis is shared, so another client's commands can land in a window; they only ever add calls.
 * Runs `ops` operations per window several times and keeps the window with the fewest calls.
 */
export async function measureCommands(
  stats: Redis,
  ops: number,
  windows: number,
  op: (index: number) => Promise<unknown>,
): Promise<CommandMeasurement> {
  const totals: number[] = [];
  let best: CommandCounts | undefined;
  for (let w = 0; w < windows; w++) {
    const before = await readCommandStats(stats);
    for (let i = 0; i < ops; i++) await op(w * ops + i);
    const delta = diffCommandStats(before, await readCommandStats(stats));
    totals.push(totalCalls(delta));
    if (!best || totalCalls(delta) < totalCalls(best)) best = delta;
  }
  const min = Math.min(...totals);
  const perOp = scaleCounts(best ?? {}, ops);
  const scriptCalls = SCRIPT_COMMANDS.reduce((sum, name) => sum + (best?.[name] ?? 0), 0);
  return {
    perOp,
    totalPerOp: Number((min / ops).toFixed(3)),
    scriptCallsPerOp: Number((scriptCalls / ops).toFixed(3)),
    agreeingWindows: totals.filter((total) => total === min).length,
    windows,
  };
}

/** CPU seconds the Redis server has used (user + system), from INFO cpu. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

/**
 * Reads the Redis server has made from client sockets (INFO stats total_reads_processed): a client
 * that sends many commands in one write costs the server one read for all of them.
 */
export async function redisReads(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_reads_processed:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Appended to a note when no two windows agreed: other clients were busy the whole time. */
export function noiseNote(measurement: Pick<CommandMeasurement, 'agreeingWindows'>): string {
  return measurement.agreeingWindows < 2
    ? ' CAUTION: no two windows agreed (other clients kept Redis busy), so this count may include theirs.'
    : '';
}
