import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LIMITS_CONFIG, type LimitsConfig, REDIS_CONFIG, type RedisConfig } from '@vigil/config';
import { countInFixedWindow, REDIS } from '@vigil/redis';
import { DomainError, storeFullOf } from '@vigil/tasks';

/** The rate limit's window: RATE_LIMIT_PER_MINUTE requests per key and route in each. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * The API's rate-limit counter of `POST /v1/tasks` for a tenant: TenantThrottlerGuard names it
 * `<tenant>:<controller>.<handler>` under `<KEY_PREFIX>:ratelimit:`. test/int/schedules holds a
 * create and a schedule's fire to the one window.
 */
export function createTaskRateKey(keyPrefix: string, tenantId: string): string {
  return `${keyPrefix}:ratelimit:${tenantId}:TasksController.create`;
}

/** A create that is not an HTTP request (a schedule's fire) over RATE_LIMIT_PER_MINUTE. */
export class CreateRateLimitError extends DomainError {
  readonly kind = 'limit';

  constructor(
    readonly limit: number,
    override readonly retryAfterS: number,
  ) {
    super(
      `rate limit reached: at most ${limit} task creations per minute per tenant ` +
        `(RATE_LIMIT_PER_MINUTE); retry after ${retryAfterS} s`,
    );
  }
}

/**
 * Counts a create made outside the HTTP API against the tenant's RATE_LIMIT_PER_MINUTE window of
 * `POST /v1/tasks`, shared with the API processes, so a schedule's fires are limited like any
 * create (docs/schedules.md, "Limits").
 */
@Injectable()
export class CreateRateWindow {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_CONFIG) private readonly redisConfig: RedisConfig,
    @Inject(LIMITS_CONFIG) private readonly limits: LimitsConfig,
  ) {}

  /** Counts one create; over the limit, CreateRateLimitError with the seconds until the window ends. */
  async hit(tenantId: string): Promise<void> {
    const key = createTaskRateKey(this.redisConfig.keyPrefix, tenantId);
    const { hits, remainingMs } = await countInFixedWindow(this.redis, key, RATE_LIMIT_WINDOW_MS).catch(
      (error: unknown) => {
        throw storeFullOf(error);
      },
    );
    if (hits > this.limits.rateLimitPerMinute)
      throw new CreateRateLimitError(
        this.limits.rateLimitPerMinute,
        Math.max(1, Math.ceil(remainingMs / 1000)),
      );
  }
}
