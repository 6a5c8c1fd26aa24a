import type { Redis } from 'ioredis';
import { sectionsOf, type VigilConfig } from '@vigil/config';
import type { ObjectStore } from '@vigil/object-store';
import type { RedisKeys } from '@vigil/redis';
import { LeaseService, RetentionSweep } from '@vigil/supervisor';
import { TaskArchiveWriter, type TaskLifecycle } from '@vigil/tasks';
import type { Tracing } from '@vigil/telemetry';

/**
 * The Watcher's retention sweep outside Nest, on a test's (or bench's) Redis and prefix, archiving
 * to `store`: its writer too, for tests that write an archive by hand. `config` sets retention and
 * ARCHIVE; the lifecycle removes what was archived.
 */
export function retentionSweepOn(
  ctx: { redis: Redis; keys: RedisKeys; config: VigilConfig },
  lifecycle: TaskLifecycle,
  store: ObjectStore,
  options: { config?: VigilConfig; owner?: string; tracing?: Tracing } = {},
): { sweep: RetentionSweep; writer: TaskArchiveWriter } {
  const sections = sectionsOf(options.config ?? ctx.config);
  const writer = new TaskArchiveWriter(ctx.redis, ctx.keys, store);
  const sweep = new RetentionSweep(
    ctx.redis,
    ctx.keys,
    lifecycle,
    writer,
    new LeaseService(ctx.redis, ctx.keys, sections.redis),
    sections.storage,
    sections.clocks,
    options.owner ?? 'retention-under-test',
    options.tracing,
  );
  return { sweep, writer };
}
