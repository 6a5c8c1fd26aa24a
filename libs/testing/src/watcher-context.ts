import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { PlatformModule } from '@vigil/platform';
import { SupervisorModule, TaskSupervisor } from '@vigil/supervisor';
import type { RedisTestContext } from './redis-test-context';
import { TaskHarness } from './task-harness';

/**
 * The Watcher's modules (platform and supervisor, as apps/watcher imports them) as a Nest context in
 * the test's process, on the test's Redis and prefix, with what its tests set tasks up through (a
 * TaskHarness: its lifecycle's queues record; the Watcher's own publishes go to the real slice
 * queue, `ctx.sliceQueue()`). `ctx.close()` closes it.
 */
export class WatcherHarness extends TaskHarness {
  private context?: INestApplicationContext;

  /** A harness on `ctx` with the Watcher's modules started. */
  static async start(ctx: RedisTestContext): Promise<WatcherHarness> {
    return new WatcherHarness(ctx).start();
  }

  async start(): Promise<this> {
    const { config } = this.ctx;
    @Module({ imports: [PlatformModule.forRoot(config, 'watcher'), SupervisorModule.forRoot(config)] })
    class WatcherTestModule {}
    const app = await NestFactory.createApplicationContext(WatcherTestModule, { logger: false });
    this.ctx.onClose(() => app.close());
    this.context = app;
    return this;
  }

  /** The started Nest context (for the Watcher's other providers). */
  get app(): INestApplicationContext {
    if (!this.context) throw new Error('WatcherHarness: start() it before its tests run');
    return this.context;
  }

  get supervisor(): TaskSupervisor {
    return this.app.get(TaskSupervisor);
  }
}
