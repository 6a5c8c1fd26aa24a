import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { RedisHealthIndicator } from './redis.health';

/** Terminus's answer, with `status: 'degraded'` when a check is up but says it is degraded. */
export type HealthAnswer = Omit<HealthCheckResult, 'status'> & {
  status: HealthCheckResult['status'] | 'degraded';
};

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: RedisHealthIndicator,
  ) {}

  /**
   * 200 `ok`, or 200 `degraded` while the store is full (docs/operations.md, "A full Redis"): the
   * app serves reads and must not be restarted for it; 503 when a check is down.
   */
  @Get('health')
  @HealthCheck()
  async check(): Promise<HealthAnswer> {
    const result = await this.health.check([() => this.redis.check()]);
    const degraded = Object.values(result.details).some((detail) => 'degraded' in detail);
    return degraded ? { ...result, status: 'degraded' } : result;
  }
}
