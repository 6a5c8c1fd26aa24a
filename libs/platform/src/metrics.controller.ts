import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Header, Inject, Req, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';
import type { Registry } from 'prom-client';
import { ADMIN_CONFIG, AdminConfig } from '@vigil/config';
import { METRICS_REGISTRY } from './metrics';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** `/metrics` on every app; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
@Controller()
export class MetricsController {
  private readonly token?: Buffer;

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(ADMIN_CONFIG) config: AdminConfig,
  ) {
    this.token = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  @Header('Cache-Control', 'no-store')
  metrics(@Req() request: Request): Promise<string> {
    if (this.token) {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match || !timingSafeEqual(digest(match[1]), this.token))
        throw new UnauthorizedException('metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    return this.registry.metrics();
  }
}
