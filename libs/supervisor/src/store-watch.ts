import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Gauge, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@vigil/platform';
import { REDIS, RedisKeys, refusedWrites, storeMemory } from '@vigil/redis';
import type { StoreEvidence, StoreFullWindow } from './watcher-decision';

function readWindow(raw: string | null): StoreFullWindow | undefined {
  if (!raw) return undefined;
  try {
    const window = JSON.parse(raw) as Partial<StoreFullWindow>;
    return typeof window.since === 'number' && typeof window.until === 'number'
      ? { since: window.since, until: window.until }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Two looks at the same full spell (several Watchers, or a flapping limit) make one window. */
function merged(a: StoreFullWindow | undefined, b: StoreFullWindow | undefined): StoreFullWindow | undefined {
  if (!a || !b) return a ?? b;
  if (a.since <= b.until && b.since <= a.until)
    return { since: Math.min(a.since, b.since), until: Math.max(a.until, b.until) };
  return a.until >= b.until ? a : b;
}

/**
 * What the Watcher knows of the store (docs/operations.md, "A full Redis"). It looks at every
 * sweep and liveness check with INFO (reads, which a full Redis still answers): `memory` says the
 * store is over its limit before any write of the Watcher's is tried, and gives the bytes used;
 * `errorstats` counts the writes Redis refused as full, so refusals between two looks count too (a
 * Redis at its limit refuses one write and takes the next, and a look may fall on either). A
 * write of its own refused with OOM (`noteRefusedWrite`) says so as well. Full lasts until a look
 * finds the store under its limit with no refusal since the last.
 *
 * While full: `vigil_store_full` 1, one log line, and every decision is `store_full`. When writes
 * succeed again the spell is kept as a window (from the last look that found the store writable to
 * the first that finds it writable again) and written to `<prefix>:store-full`, so every Watcher,
 * one started since included, continues the tasks it silenced instead of recovering them.
 */
@Injectable()
export class StoreWatch {
  private readonly logger = new Logger(StoreWatch.name);
  private readonly fullGauge: Gauge;
  private readonly usedGauge: Gauge;
  private full = false;
  private fullSince = 0;
  private lastWritableAt?: number;
  private lastWindow?: StoreFullWindow;
  /** The OOM refusals counted at the last look (none before the first). */
  private lastRefused?: number;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    const gauge = (name: string, help: string) =>
      (registry.getSingleMetric(name) as Gauge | undefined) ??
      new Gauge({ name, help, registers: [registry] });
    this.fullGauge = gauge(
      'vigil_store_full',
      'Whether Redis refuses writes because it reached maxmemory (1) or not (0), as this Watcher last saw it',
    );
    this.usedGauge = gauge(
      'vigil_redis_used_bytes',
      "Redis's used_memory (INFO memory; summed over a cluster's masters) at this Watcher's last look",
    );
    this.fullGauge.set(0);
  }

  /** What decisions are told now. */
  evidence(): StoreEvidence {
    return this.lastWindow ? { full: this.full, lastFullWindow: this.lastWindow } : { full: this.full };
  }

  /** One look: INFO memory and errorstats, and the window other Watchers recorded (reads). A failed look changes nothing. */
  async look(now = Date.now()): Promise<StoreEvidence> {
    let memory: Awaited<ReturnType<typeof storeMemory>>;
    let refused: number;
    let recorded: string | null;
    try {
      [memory, refused, recorded] = await Promise.all([
        storeMemory(this.redis),
        refusedWrites(this.redis),
        this.redis.get(this.keys.storeFullWindow()),
      ]);
    } catch (error) {
      this.logger.warn(`looking at Redis's memory failed: ${String(error)}`);
      return this.evidence();
    }
    // A count lower than the last means Redis restarted (or its stats were reset): a new baseline.
    const refusedSince = this.lastRefused === undefined ? 0 : Math.max(0, refused - this.lastRefused);
    this.lastRefused = refused;
    this.usedGauge.set(memory.usedBytes);
    this.lastWindow = merged(this.lastWindow, readWindow(recorded));
    if (memory.full)
      this.filled(now, `used_memory ${memory.usedBytes} B is above maxmemory ${memory.maxBytes} B`);
    else if (refusedSince > 0)
      this.filled(now, `${refusedSince} writes refused with OOM since the last look`);
    else await this.writable(now);
    return this.evidence();
  }

  /** A write of this Watcher's was refused because Redis is full. */
  noteRefusedWrite(now = Date.now()): void {
    this.filled(now, 'a write was refused with OOM');
  }

  private filled(now: number, why: string): void {
    if (this.full) return;
    this.full = true;
    this.fullSince = this.lastWritableAt ?? now;
    this.fullGauge.set(1);
    this.logger.warn(
      `store_full: Redis is full (${why}) and refuses writes: this Watcher recovers, fails and publishes nothing until writes succeed again`,
    );
  }

  private async writable(now: number): Promise<void> {
    this.lastWritableAt = now;
    if (!this.full) return;
    this.full = false;
    this.fullGauge.set(0);
    this.lastWindow = merged(this.lastWindow, { since: this.fullSince, until: now });
    this.logger.warn(
      `store_full over: Redis takes writes again after about ${Math.round((now - this.fullSince) / 1000)} s; ` +
        'tasks silenced meanwhile continue from their last recorded step, no retry counted',
    );
    await this.redis
      .set(this.keys.storeFullWindow(), JSON.stringify(this.lastWindow))
      .catch((error: unknown) =>
        this.logger.warn(`recording the store_full window failed: ${String(error)}`),
      );
  }
}
