import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { bodyParserMessage, isBodyParserError } from './json-body.middleware';
import { boundedProblems } from '@vigil/kinds';
import { DomainError, type DomainErrorKind } from '@vigil/tasks';

/** The one mapping from what a domain error means to its HTTP status. */
export const STATUS_OF_KIND: Readonly<Record<DomainErrorKind, HttpStatus>> = {
  not_found: HttpStatus.NOT_FOUND,
  conflict: HttpStatus.CONFLICT,
  invalid: HttpStatus.BAD_REQUEST,
  unprocessable: HttpStatus.UNPROCESSABLE_ENTITY,
  limit: HttpStatus.TOO_MANY_REQUESTS,
  unavailable: HttpStatus.SERVICE_UNAVAILABLE,
  upstream: HttpStatus.BAD_GATEWAY,
};

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** An error body's message is cut at this many characters, so a body stays well under 4 KB. */
export const MAX_ERROR_MESSAGE_CHARS = 3000;

/** At most 20 problems joined, cut to MAX_ERROR_MESSAGE_CHARS (docs/api.md, "Requests and errors"). */
function bounded(problems: readonly unknown[]): string {
  const list = problems.map(String);
  const text = (list.length === 1 ? list : boundedProblems(list)).join('; ');
  return text.length <= MAX_ERROR_MESSAGE_CHARS ? text : `${text.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…`;
}

/** The one place errors become HTTP: always `{statusCode, error, message}`, bounded in size. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    let statusCode = HttpStatus.INTERNAL_SERVER_ERROR;
    let message = 'internal error';
    const extra: Record<string, unknown> = {};
    if (exception instanceof HttpException) {
      statusCode = exception.getStatus();
      const body = exception.getResponse();
      const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      message = bounded(Array.isArray(raw) ? raw : [raw ?? exception.message]);
    } else if (exception instanceof DomainError) {
      // A code kind built as plain JS may throw a DomainError that declares no kind: a 500, logged.
      statusCode = STATUS_OF_KIND[exception.kind] ?? HttpStatus.INTERNAL_SERVER_ERROR;
      message = bounded(exception.problemList());
      Object.assign(extra, exception.details());
      if (exception.retryAfterS !== undefined)
        response.setHeader('Retry-After', String(exception.retryAfterS));
    } else if (isBodyParserError(exception)) {
      statusCode = exception.status;
      message = bodyParserMessage(exception);
    }
    if (statusCode >= 500)
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : exception);
    response.status(statusCode).json({
      statusCode,
      error: REASONS[statusCode] ?? HttpStatus[statusCode] ?? 'Error',
      message,
      ...extra,
    });
  }
}
