import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ActiveTaskLimitError } from '@vigil/control';
import { InvalidConversationIdError, MessageInProgressError } from '@vigil/conversations';
import { bodyParserMessage, isBodyParserError } from './json-body.middleware';
import { WebhookTargetError } from '@vigil/notify';
import { boundedProblems, ModelRequiredError, UnknownKindError } from '@vigil/kinds';
import {
  DomainError,
  IdempotencyConflictError,
  IllegalTransitionError,
  InvalidCursorError,
  InvalidIdempotencyKeyError,
  InvalidTaskInputError,
  StaleAttemptError,
  TaskNotActiveError,
  TaskNotFoundError,
} from '@vigil/tasks';

function statusOf(error: DomainError): number {
  if (error instanceof TaskNotFoundError) return HttpStatus.NOT_FOUND;
  if (error instanceof IllegalTransitionError) return HttpStatus.CONFLICT;
  if (error instanceof StaleAttemptError || error instanceof TaskNotActiveError) return HttpStatus.CONFLICT;
  if (error instanceof IdempotencyConflictError) return HttpStatus.UNPROCESSABLE_ENTITY;
  if (error instanceof ModelRequiredError) return HttpStatus.UNPROCESSABLE_ENTITY;
  if (error instanceof ActiveTaskLimitError) return HttpStatus.TOO_MANY_REQUESTS;
  if (error instanceof MessageInProgressError) return HttpStatus.CONFLICT;
  if (
    error instanceof InvalidTaskInputError ||
    error instanceof InvalidConversationIdError ||
    error instanceof UnknownKindError ||
    error instanceof WebhookTargetError ||
    error instanceof InvalidCursorError ||
    error instanceof InvalidIdempotencyKeyError
  ) {
    return HttpStatus.BAD_REQUEST;
  }
  return HttpStatus.INTERNAL_SERVER_ERROR;
}

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
      statusCode = statusOf(exception);
      message = bounded(
        exception instanceof InvalidTaskInputError ? exception.problems : [exception.message],
      );
      if (exception instanceof IllegalTransitionError) extra.currentStatus = exception.currentStatus;
      if (exception instanceof ActiveTaskLimitError) {
        extra.activeTasks = exception.active;
        // A hint, not a promise: room opens when one of the tenant's tasks ends.
        response.setHeader('Retry-After', String(ACTIVE_LIMIT_RETRY_AFTER_S));
      }
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

/** A tenant at its active-task cap may try again this many seconds later. */
const ACTIVE_LIMIT_RETRY_AFTER_S = 30;
