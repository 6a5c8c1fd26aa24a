import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { PlatformModule } from '@vigil/platform';
import { SupervisorModule } from '@vigil/supervisor';
import type { RedisTestContext } from './redis-test-context';

/**
 * The Watcher's modules (platform and supervisor, as apps/watcher imports them) as a Nest context in
 * the test's process, on the test's Redis and prefix; `ctx.close()` closes it.
 */
export async function startWatcherContext(ctx: RedisTestContext): Promise<INestApplicationContext> {
  @Module({
    imports: [PlatformModule.forRoot(ctx.config, 'watcher'), SupervisorModule.forRoot(ctx.config)],
  })
  class WatcherTestModule {}
  const app = await NestFactory.createApplicationContext(WatcherTestModule, { logger: false });
  ctx.onClose(() => app.close());
  return app;
}
