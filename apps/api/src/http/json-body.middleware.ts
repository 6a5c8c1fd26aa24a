import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Refuses a request body that is not declared as JSON (415) instead of letting another body
 * parser, or none, turn it into something the validation messages would then misdescribe.
 */
export function requireJsonBody(request: Request, _response: Response, next: NextFunction): void {
  if (!['POST', 'PUT', 'PATCH'].includes(request.method)) return next();
  const length = Number(request.headers['content-length'] ?? 0);
  if (request.headers['transfer-encoding'] === undefined && !(length > 0)) return next();
  const type = request.headers['content-type'];
  if (type !== undefined && JSON_TYPE.test(type)) return next();
  const got = type === undefined ? 'no Content-Type' : `Content-Type: ${type.slice(0, 100)}`;
  next(
    new UnsupportedMediaTypeException(
      `send the request body as JSON with Content-Type: application/json (got ${got})`,
    ),
  );
}
