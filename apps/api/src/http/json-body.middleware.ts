import { HttpException, UnsupportedMediaTypeException } from '@nestjs/common';
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

export function isBodyParserError(
  error: unknown,
): error is { status: number; type: string; message?: unknown } {
  return typeof error === 'object' && error !== null && 'type' in error && 'status' in error;
}

/**
 * What the body parser refused, in words that never quote the body: JSON.parse's own message
 * carries fragments of it (`Unexpected token 'o', "…oops" is not valid JSON`), and a body may hold
 * a secret. Only the position, when the parser names one, is kept.
 */
export function bodyParserMessage(error: { type: string; message?: unknown }): string {
  if (error.type === 'entity.too.large') return 'request body is too large';
  if (error.type === 'entity.parse.failed') {
    const position = /\bposition (\d+)/.exec(String(error.message ?? ''))?.[1];
    return position === undefined
      ? 'request body is not valid JSON'
      : `request body is not valid JSON (error at character ${position})`;
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported')
    return 'request body uses an unsupported encoding or charset: send UTF-8 JSON';
  return 'request body could not be read';
}

/**
 * Mounted right after the body parser: its errors become HTTP errors worded by bodyParserMessage
 * before Nest would turn a JSON SyntaxError into a 400 carrying the parser's message verbatim.
 */
export function bodyParserErrors(
  error: unknown,
  _request: Request,
  _response: Response,
  next: NextFunction,
): void {
  if (isBodyParserError(error) && error.status >= 400 && error.status < 500)
    return next(new HttpException(bodyParserMessage(error), error.status));
  next(error);
}
