import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';
import { ADMIN_CONFIG, AdminConfig } from '@vigil/config';

export interface AuthenticatedRequest extends Request {
  tenantId: string;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <key>`; keys are compared in constant time, every key every time. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly keys: { tenantId: string; digest: Buffer }[];

  constructor(@Inject(ADMIN_CONFIG) config: AdminConfig) {
    this.keys = config.apiKeys.map((entry) => ({ tenantId: entry.tenantId, digest: digest(entry.key) }));
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException('missing Authorization: Bearer <api key>');
    const presented = digest(match[1]);
    let tenantId: string | undefined;
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, presented) && tenantId === undefined) tenantId = key.tenantId;
    }
    if (tenantId === undefined) throw new UnauthorizedException('invalid API key');
    request.tenantId = tenantId;
    return true;
  }
}
