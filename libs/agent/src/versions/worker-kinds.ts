import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';

/** What one Worker runs: kind name → the versions of its tasks it can run. */
export type RunnableVersions = Record<string, number[]>;

interface Advertised {
  runs: RunnableVersions;
  /** Past this (epoch ms) the entry is a Worker gone without saying so, and is ignored. */
  until: number;
}

/**
 * Which kinds and versions the live Workers run (docs/kinds.md, "Versions"): one entry per Worker
 * in one hash, each valid until its `until`, refreshed while the Worker lives and removed when it
 * shuts down. A SIGKILLed Worker's entry is ignored once it lapses, and removed by the next reader.
 */
@Injectable()
export class WorkerKinds {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async advertise(
    workerId: string,
    runs: RunnableVersions,
    validMs: number,
    now = Date.now(),
  ): Promise<void> {
    const entry: Advertised = { runs, until: now + validMs };
    await this.redis.hset(this.keys.workerKinds(), workerId, JSON.stringify(entry));
  }

  async withdraw(workerId: string): Promise<void> {
    await this.redis.hdel(this.keys.workerKinds(), workerId);
  }

  /** Whether a live Worker other than `except` runs `kind` at `version`. */
  async anyRuns(kind: string, version: number, except: string, now = Date.now()): Promise<boolean> {
    const entries = await this.redis.hgetall(this.keys.workerKinds());
    const lapsed: string[] = [];
    let found = false;
    for (const [workerId, raw] of Object.entries(entries)) {
      const entry = parse(raw);
      if (!entry || entry.until < now) lapsed.push(workerId);
      else if (workerId !== except && entry.runs[kind]?.includes(version)) found = true;
    }
    if (lapsed.length > 0) await this.redis.hdel(this.keys.workerKinds(), ...lapsed);
    return found;
  }
}

function parse(raw: string): Advertised | null {
  try {
    const entry = JSON.parse(raw) as Advertised;
    return typeof entry?.until === 'number' && entry.runs && typeof entry.runs === 'object' ? entry : null;
  } catch {
    return null;
  }
}
