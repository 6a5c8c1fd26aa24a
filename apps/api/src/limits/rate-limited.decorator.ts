import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { TenantThrottlerGuard } from './tenant-throttler.guard';

/** RATE_LIMIT_PER_MINUTE on a write route, and its 429 in the OpenAPI description. */
export const RateLimited = (also?: string) =>
  applyDecorators(
    UseGuards(TenantThrottlerGuard),
    ApiTooManyRequestsResponse({
      description:
        'RATE_LIMIT_PER_MINUTE reached for this API key and route; `Retry-After` says in how many seconds to try again' +
        (also ? `; or ${also}` : ''),
      headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } },
    }),
  );
