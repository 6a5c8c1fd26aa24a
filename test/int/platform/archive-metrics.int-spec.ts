import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ArchiveMetrics, PlatformModule } from '@vigil/platform';
import { RedisTestContext } from '@vigil/testing';
import { sample } from '../../support/prometheus-text';

/** Retention's counters on an app's /metrics (docs/operations.md, "Sizing Redis"). */
describe('ArchiveMetrics', () => {
  const ctx = new RedisTestContext('archive-metrics');
  let app: INestApplication;
  let base: string;

  // Provided by two modules of one process: both count into the one pair of counters.
  @Module({ providers: [ArchiveMetrics] })
  class ArchiverModule {}
  @Module({
    imports: [PlatformModule.forRoot(ctx.config, 'test'), ArchiverModule],
    providers: [ArchiveMetrics],
  })
  class TestModule {}

  beforeAll(async () => {
    app = await NestFactory.create(TestModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  const scrape = async () => (await fetch(`${base}/metrics`)).text();

  it('exports vigil_archived_total and vigil_archive_failures_total at 0 from boot, then counts', async () => {
    const before = await scrape();
    expect(before).toMatch(/^vigil_archived_total\{app="vigil-test"\} 0$/m);
    expect(before).toMatch(/^vigil_archive_failures_total\{app="vigil-test"\} 0$/m);

    const root = app.select(TestModule).get(ArchiveMetrics, { strict: true });
    const other = app.select(ArchiverModule).get(ArchiveMetrics, { strict: true });
    expect(other).not.toBe(root);
    root.archived();
    root.archived(3);
    root.failed();
    other.archived();

    const after = await scrape();
    expect(sample(after, 'vigil_archived_total')).toBe(5);
    expect(sample(after, 'vigil_archive_failures_total')).toBe(1);
  });
});
