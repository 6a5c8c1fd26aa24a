import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { REDIS } from '@vigil/redis';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async check(): Promise<HealthIndicatorResult> {
    const indicator = this.indicator.check('redis');
    const started = Date.now();
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('ping timed out after 1000 ms')), 1000)),
      ]);
      return indicator.up({ latencyMs: Date.now() - started });
    } catch (error) {
      return indicator.down({ message: String(error) });
    }
  }
}
