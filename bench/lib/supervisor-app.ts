import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { VigilConfig } from '@vigil/config';
import type { SupervisorSweep } from '@vigil/supervisor';

/**
 * Boots the Watcher's modules (PlatformModule + SupervisorModule.forRoot) in this process, from the
 * production build: tsx/esbuild emits no decorator metadata, which Nest's constructor injection
 * needs, so the compiled classes are used. Returns the real SupervisorSweep the Watcher ticks.
 */
export async function bootSupervisor(
  dist: string,
  config: VigilConfig,
): Promise<{ sweep: SupervisorSweep; app: INestApplicationContext }> {
  const load = createRequire(__filename);
  const platform = load(join(dist, 'libs/platform/src/index.js')) as typeof import('@vigil/platform');
  const supervisor = load(join(dist, 'libs/supervisor/src/index.js')) as typeof import('@vigil/supervisor');
  class SweepBenchModule {}
  Module({
    imports: [
      platform.PlatformModule.forRoot(config, 'watcher'),
      supervisor.SupervisorModule.forRoot(config),
    ],
  })(SweepBenchModule);
  const app = await NestFactory.createApplicationContext(SweepBenchModule, { logger: false });
  return { sweep: app.get(supervisor.SupervisorSweep), app };
}
