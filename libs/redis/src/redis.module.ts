import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS_CONFIG, RedisConfig } from '@vigil/config';
import { createRedis } from './redis-connection';
import { coalesceWrites } from './write-coalescing';
import { RedisKeys } from './redis-keys';

export const REDIS = Symbol('REDIS');

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch((error: unknown) => {
      this.logger.warn(`closing Redis failed: ${String(error)}`);
      this.redis.disconnect();
    });
  }
}

/** One shared command connection per process (a Cluster client on a cluster) plus the key naming scheme. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [REDIS_CONFIG],
      useFactory: (config: RedisConfig) => coalesceWrites(createRedis(config, `vigil:${process.pid}`)),
    },
    {
      provide: RedisKeys,
      inject: [REDIS_CONFIG],
      useFactory: (config: RedisConfig) => new RedisKeys(config.keyPrefix, config.shards),
    },
    RedisCloser,
  ],
  exports: [REDIS, RedisKeys],
})
export class RedisModule {}
