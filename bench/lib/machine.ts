import { cpus, loadavg, release, totalmem, type } from 'node:os';
import type { Redis } from 'ioredis';

export interface MachineFacts {
  cpuModel: string;
  cpuCount: number;
  memoryGiB: number;
  os: string;
  node: string;
  redis: string;
  redisUrl: string;
  /** 1-minute load average at the start: a hint of how busy the shared machine was. */
  loadAverage1m: number;
}

export async function machineFacts(redis: Redis, redisUrl: string): Promise<MachineFacts> {
  const server = await redis.info('server');
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCount: list.length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    os: `${type()} ${release()}`,
    node: process.version,
    redis: /redis_version:(\S+)/.exec(server)?.[1] ?? 'unknown',
    redisUrl: redisUrl.replace(/\/\/[^@]*@/, '//***@'),
    loadAverage1m: Number(loadavg()[0].toFixed(2)),
  };
}
