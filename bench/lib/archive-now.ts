import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileObjectStore, type ObjectStore } from '@vigil/object-store';
import type { RetentionReport } from '@vigil/supervisor';
import { redisLifecycle, retentionSweepOn } from '@vigil/testing';
import type { BenchContext } from './context';

/** Far enough ahead that every finished task's retention (the longest default is 30 days) has run out. */
const TEN_YEARS_MS = 10 * 365 * 86_400_000;

/**
 * The Watcher's retention sweep, in the bench's process, on its Redis and prefix: archives every
 * finished task now (as if its retention had run out) to `store`, by default a fresh `file://`
 * directory. Repeats until a sweep finds nothing left.
 */
export async function archiveNow(
  ctx: BenchContext,
  store?: ObjectStore,
): Promise<RetentionReport & { store: ObjectStore }> {
  const objects = store ?? new FileObjectStore(mkdtempSync(join(tmpdir(), 'vigil-bench-archive-')));
  const { lifecycle } = redisLifecycle(ctx);
  const { sweep } = retentionSweepOn(ctx, lifecycle, objects, { owner: 'bench' });
  const total: RetentionReport = { archived: 0, deleted: 0, failed: 0, postponed: 0, archivedBytes: 0 };
  // A sweep takes a bounded number of batches, and a child waits for its parent's sweep: rounds
  // until one finds nothing left (bounded, should a child wait on a parent that never ends).
  for (let round = 0; round < 1000; round++) {
    const report = await sweep.tick(Date.now() + TEN_YEARS_MS);
    for (const field of Object.keys(total) as (keyof RetentionReport)[]) total[field] += report[field];
    if (report.archived + report.deleted + report.postponed === 0) break;
  }
  return { ...total, store: objects };
}
