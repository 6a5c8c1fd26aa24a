import 'reflect-metadata';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { ConfigError, loadConfig, VigilConfig } from '@vigil/config';

export interface BootstrapOptions {
  name: 'api' | 'worker' | 'watcher' | 'notifier';
  module: (config: VigilConfig) => DynamicModule;
  port: (config: VigilConfig) => number;
  configure?: (app: INestApplication, config: VigilConfig) => void | Promise<void>;
}

/** Loads the configuration or stops the process with a message naming the bad variable. */
export function loadConfigOrExit(name: string): VigilConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`vigil-${name}: invalid configuration: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/**
 * Boots one app as its own process: validated config, JSON logs, HTTP (health for every app),
 * and a clean shutdown on SIGTERM/SIGINT that closes queues, Redis and HTTP through Nest's hooks.
 */
export async function bootstrap(options: BootstrapOptions): Promise<INestApplication> {
  const config = loadConfigOrExit(options.name);
  const app = await NestFactory.create(options.module(config), { bufferLogs: true });
  app.useLogger(app.get(PinoNestLogger));
  app.enableShutdownHooks();
  await options.configure?.(app, config);
  const port = options.port(config);
  await app.listen(port, '0.0.0.0');
  const address = app.getHttpServer().address() as { port: number } | null;
  app
    .get(PinoNestLogger)
    .log(`vigil-${options.name} ready on port ${address?.port ?? port} (pid ${process.pid})`, 'Bootstrap');
  return app;
}
