import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { RedisModule } from '@vigil/redis';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';
import { MetricsController } from './metrics.controller';
import { VersionController } from './version.controller';
import { METRICS_REGISTRY, createMetricsRegistry } from './metrics';

/** What every app shares: config, Redis, structured logs, /health, /metrics and /version. */
@Module({})
export class PlatformModule {
  static forRoot(config: VigilConfig, app: string): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      imports: [
        RedisModule,
        TerminusModule,
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
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
        { provide: METRICS_REGISTRY, useFactory: () => createMetricsRegistry(app) },
        RedisHealthIndicator,
      ],
      exports: [VIGIL_CONFIG, METRICS_REGISTRY, RedisHealthIndicator],
    };
  }
}
