import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerLimitDetail } from '@nestjs/throttler';
import type { AuthenticatedRequest } from '../http/api-key.guard';

/**
 * RATE_LIMIT_PER_MINUTE per API key (its tenant) and route, counted in Redis across every API
 * process; over it, a 429 with `Retry-After` (seconds). Runs after ApiKeyGuard, which names the
 * tenant; applied to the writes: create, the controls and conversation messages.
 */
@Injectable()
export class TenantThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    return Promise.resolve((request as unknown as AuthenticatedRequest).tenantId);
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    return `${tracker}:${context.getClass().name}.${context.getHandler().name}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new ThrottlerException(
      `rate limit reached: at most ${detail.limit} of these requests per minute per API key ` +
        `(RATE_LIMIT_PER_MINUTE); retry after ${detail.timeToBlockExpire} s`,
    );
  }
}
