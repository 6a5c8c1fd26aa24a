import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { SECTION_TOKENS, sectionProviders, sectionsOf, VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { RedisModule } from '@vigil/redis';
import { createTracing, TRACING } from '@vigil/telemetry';
import { CODE_VERSION } from './code-version';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';
import { MetricsController } from './metrics.controller';
import { VersionController } from './version.controller';
import { METRICS_REGISTRY, createMetricsRegistry } from './metrics';
import { httpMetricsMiddleware } from './http-metrics';
import { installSecretScrubbing, REDACT_PATHS, REDACTED } from './secrets';

/** What every app shares: config, Redis, structured logs, traces, /health, /metrics and /version. */
@Module({})
export class PlatformModule implements NestModule {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  static forRoot(config: VigilConfig, app: string): DynamicModule {
    // Secret values never reach a log line: pino's own lines through the hook below, every other
    // write to stdout/stderr through the patched streams (docs/operations.md, "Secrets never logged").
    const scrub = installSecretScrubbing(process.env);
    return {
      module: PlatformModule,
      global: true,
      imports: [
        RedisModule,
        TerminusModule,
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            redact: { paths: REDACT_PATHS, censor: REDACTED },
            hooks: { streamWrite: scrub },
            // pino-pretty is a development dependency: only start:all asks for it.
            ...(config.logFormat === 'pretty'
              ? {
                  transport: {
                    target: 'pino-pretty',
                    options: { singleLine: true, ignore: 'pid,hostname,req,res' },
                  },
                }
              : {}),
            base: { app: `vigil-${app}`, pid: process.pid },
            autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' },
          },
          // The request-logging middleware runs each request in an AsyncLocalStorage; on Node 20
          // the first one switches on promise hooks for the life of the process, which cost a
          // worker about 5% of its CPU. Probes and scrapes need no request context.
          exclude: [
            { path: 'health', method: RequestMethod.ALL },
            { path: 'metrics', method: RequestMethod.ALL },
          ],
        }),
      ],
      controllers: [HealthController, MetricsController, VersionController],
      providers: [
        { provide: VIGIL_CONFIG, useValue: config },
        // Each concern injects only its section (docs/operations.md, "Configuration sections").
        ...sectionProviders(config),
        { provide: METRICS_REGISTRY, useFactory: () => createMetricsRegistry(app) },
        // Off (the no-op, no SDK loaded) unless an OTLP endpoint is set (docs/observability.md).
        {
          provide: TRACING,
          useFactory: () =>
            createTracing(sectionsOf(config).telemetry, { app, version: CODE_VERSION.label, scrub }),
        },
        RedisHealthIndicator,
      ],
      exports: [
        VIGIL_CONFIG,
        ...Object.values(SECTION_TOKENS),
        METRICS_REGISTRY,
        TRACING,
        RedisHealthIndicator,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(httpMetricsMiddleware(this.registry)).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
