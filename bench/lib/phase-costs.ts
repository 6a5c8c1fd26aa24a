import type { Redis } from 'ioredis';
import { cpuMs } from './processes';
import { round } from './stats';

/** Calls and server time of one Redis command over a phase. */
interface CommandCost {
  calls: number;
  usec: number;
}

function commandCosts(info: string): Record<string, CommandCost> {
  const costs: Record<string, CommandCost> = {};
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (match) costs[match[1].toLowerCase()] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return costs;
}

/** A phase's start: CPU of each named process and Redis' per-command counters. */
export interface PhaseMark {
  cpu: Record<string, number>;
  commands: Record<string, CommandCost>;
}

export async function markPhase(pids: Record<string, number>, stats: Redis): Promise<PhaseMark> {
  return {
    cpu: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)])),
    commands: commandCosts(await stats.info('commandstats')),
  };
}

/**
 * Where a phase's work went, per task: CPU ms of each process (Redis' own included) and Redis'
 * server time by command (µs), its largest ten. Compared between the phases with and without
 * retention, it says what archiving costs and who pays it.
 */
export interface PhaseCost {
  cpuMsPerTask: Record<string, number>;
  redisUsecPerTask: number;
  redisCallsPerTask: number;
  topRedisUsecPerTask: Record<string, number>;
}

export async function costSince(
  mark: PhaseMark,
  pids: Record<string, number>,
  stats: Redis,
  tasks: number,
): Promise<PhaseCost> {
  const now = await markPhase(pids, stats);
  const cpuMsPerTask = Object.fromEntries(
    Object.entries(now.cpu).map(([name, ms]) => [name, round((ms - (mark.cpu[name] ?? 0)) / tasks, 3)]),
  );
  const deltas = Object.entries(now.commands)
    .filter(([name]) => name !== 'info')
    .map(([name, cost]) => {
      const before = mark.commands[name] ?? { calls: 0, usec: 0 };
      return [name, { calls: cost.calls - before.calls, usec: cost.usec - before.usec }] as const;
    })
    .filter(([, cost]) => cost.calls > 0);
  const sum = (field: keyof CommandCost) => deltas.reduce((total, [, cost]) => total + cost[field], 0);
  return {
    cpuMsPerTask,
    redisUsecPerTask: round(sum('usec') / tasks, 1),
    redisCallsPerTask: round(sum('calls') / tasks, 1),
    topRedisUsecPerTask: Object.fromEntries(
      deltas
        .sort(([, a], [, b]) => b.usec - a.usec)
        .slice(0, 10)
        .map(([name, cost]) => [name, round(cost.usec / tasks, 2)]),
    ),
  };
}

/** Adds `cost` into `total` (phases of one mode summed, per-task figures weighted equally). */
export function addCost(total: PhaseCost | undefined, cost: PhaseCost, phases: number): PhaseCost {
  const mix = (a: Record<string, number>, b: Record<string, number>) => {
    const out: Record<string, number> = { ...a };
    for (const [name, value] of Object.entries(b)) out[name] = round((out[name] ?? 0) + value / phases, 3);
    return out;
  };
  const base: PhaseCost = total ?? {
    cpuMsPerTask: {},
    redisUsecPerTask: 0,
    redisCallsPerTask: 0,
    topRedisUsecPerTask: {},
  };
  return {
    cpuMsPerTask: mix(base.cpuMsPerTask, cost.cpuMsPerTask),
    redisUsecPerTask: round(base.redisUsecPerTask + cost.redisUsecPerTask / phases, 1),
    redisCallsPerTask: round(base.redisCallsPerTask + cost.redisCallsPerTask / phases, 1),
    topRedisUsecPerTask: mix(base.topRedisUsecPerTask, cost.topRedisUsecPerTask),
  };
}
