import 'reflect-metadata';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { ConfigError, loadConfig, providersInUse, VigilConfig } from '@vigil/config';
import { TRACING, type Tracing } from '@vigil/telemetry';
import { CODE_VERSION } from './code-version';
import { installSecretScrubbing } from './secrets';

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
  // Before anything can print: a config error may quote a value, a library may print a URL.
  installSecretScrubbing(process.env);
  const config = loadConfigOrExit(options.name);
  const app = await NestFactory.create(options.module(config), { bufferLogs: true });
  // No app says what it is built with.
  (app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void }).disable?.('x-powered-by');
  app.useLogger(app.get(PinoNestLogger));
  await options.configure?.(app, config);
  const port = options.port(config);
  await app.listen(port, '0.0.0.0');
  // Before the ready line: whoever waits for it may send SIGTERM at once, and must get a clean exit.
  exitCleanlyOnSignals(app, options.name, config.drainTimeoutMs);
  const address = app.getHttpServer().address() as { port: number } | null;
  app
    .get(PinoNestLogger)
    .log(`vigil-${options.name} ready on port ${address?.port ?? port} (pid ${process.pid})`, 'Bootstrap');
  const providers = Object.entries(providersInUse(config)).map(
    ([model, provider]) => `${model} → ${provider}`,
  );
  app
    .get(PinoNestLogger)
    .log(`vigil-${options.name} ${CODE_VERSION.label}; models: ${providers.join(', ')}`, 'Bootstrap');
  if (config.developmentDefaults.length > 0) {
    app
      .get(PinoNestLogger)
      .warn(
        `vigil-${options.name} runs with public development defaults for ${config.developmentDefaults.join(', ')}: set them before serving real users`,
        'Bootstrap',
      );
  }
  return app;
}

/**
 * SIGTERM/SIGINT close the app (Nest's shutdown hooks drain a Worker's slices, then close queues,
 * Redis and HTTP), export the spans still buffered (the drain's own among them), and exit 0; a
 * shutdown that hangs is cut off after the drain deadline plus 15 s with exit 1.
 */
function exitCleanlyOnSignals(app: INestApplication, name: string, drainTimeoutMs: number): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const logger = app.get(PinoNestLogger);
    logger.log(`vigil-${name}: ${signal} received, shutting down`, 'Bootstrap');
    const limitMs = drainTimeoutMs + 15_000;
    const force = setTimeout(() => {
      process.stderr.write(`vigil-${name}: shutdown took longer than ${limitMs} ms, exiting\n`);
      process.exit(1);
    }, limitMs);
    force.unref();
    const tracing = app.get<Tracing>(TRACING);
    app
      .close()
      .then(() => flushTraces(tracing, name))
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`vigil-${name}: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** The last spans go out before the exit; an unreachable collector costs the exporter's timeout, never the exit. */
async function flushTraces(tracing: Tracing, name: string): Promise<void> {
  try {
    await tracing.shutdown();
  } catch (error) {
    process.stderr.write(`vigil-${name}: exporting the last spans failed: ${String(error)}\n`);
  }
}
