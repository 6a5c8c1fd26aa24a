import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { ActiveTaskLimitError, ControlNotAllowedError, controlRefusal } from '@vigil/control';
import { InvalidConversationIdError, MessageInProgressError } from '@vigil/conversations';
import { ModelRequiredError, UnknownKindError } from '@vigil/kinds';
import { WebhookTargetError } from '@vigil/notify';
import {
  DOMAIN_ERROR_KINDS,
  DomainError,
  type DomainErrorKind,
  IdempotencyConflictError,
  IllegalTransitionError,
  InvalidCursorError,
  InvalidIdempotencyKeyError,
  InvalidTaskInputError,
  StaleAttemptError,
  TaskNotActiveError,
  TaskNotFoundError,
} from '@vigil/tasks';
import { ErrorFilter } from './error.filter';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

function answer(exception: unknown): Answer {
  const sent = { status: 0, body: {}, headers: {} } as Answer;
  const response = {
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: Record<string, unknown>) => (sent.body = body),
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new ErrorFilter().catch(exception, host);
  return sent;
}

/** Written out apart from the filter's table, so a changed status fails here. */
const EXPECTED: Record<DomainErrorKind, [number, string]> = {
  not_found: [404, 'Not Found'],
  conflict: [409, 'Conflict'],
  invalid: [400, 'Bad Request'],
  unprocessable: [422, 'Unprocessable Entity'],
  limit: [429, 'Too Many Requests'],
  unavailable: [503, 'Service Unavailable'],
  upstream: [502, 'Bad Gateway'],
};

describe('ErrorFilter', () => {
  let logged: jest.SpyInstance;
  beforeEach(() => (logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined)));
  afterEach(() => logged.mockRestore());

  it('has an expected status for every kind, and no other', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...DOMAIN_ERROR_KINDS].sort());
  });

  it.each(DOMAIN_ERROR_KINDS)('maps a %s error to its status with the plain body', (kind) => {
    class Refusal extends DomainError {
      readonly kind = kind;
    }
    const [statusCode, error] = EXPECTED[kind];
    expect(answer(new Refusal('refused in words'))).toEqual({
      status: statusCode,
      body: { statusCode, error, message: 'refused in words' },
      headers: {},
    });
    // A store that fails Vigil (5xx) is the operator's business: logged; a refused request is not.
    expect(logged).toHaveBeenCalledTimes(statusCode >= 500 ? 1 : 0);
  });

  it.each<[string, DomainError, DomainErrorKind]>([
    ['TaskNotFoundError', new TaskNotFoundError('t1'), 'not_found'],
    ['IllegalTransitionError', new IllegalTransitionError('t1', 'completed', 'running'), 'conflict'],
    ['ControlNotAllowedError', new ControlNotAllowedError('resume', 't1', 'completed', 'queued'), 'conflict'],
    ['StaleAttemptError', new StaleAttemptError('t1', 1, 2), 'conflict'],
    ['TaskNotActiveError', new TaskNotActiveError('t1', 'paused'), 'conflict'],
    ['MessageInProgressError', new MessageInProgressError('m1'), 'conflict'],
    ['InvalidTaskInputError', new InvalidTaskInputError(['a is wrong']), 'invalid'],
    ['InvalidConversationIdError', new InvalidConversationIdError('a b'), 'invalid'],
    ['UnknownKindError', new UnknownKindError('nope', ['noop']), 'invalid'],
    ['WebhookTargetError', new WebhookTargetError('notify.webhookUrl must use http or https'), 'invalid'],
    ['InvalidCursorError', new InvalidCursorError(), 'invalid'],
    ['InvalidIdempotencyKeyError', new InvalidIdempotencyKeyError(), 'invalid'],
    ['IdempotencyConflictError', new IdempotencyConflictError('k1'), 'unprocessable'],
    ['ModelRequiredError', new ModelRequiredError('no model key is set'), 'unprocessable'],
    ['ActiveTaskLimitError', new ActiveTaskLimitError(5, 5), 'limit'],
  ])('%s is a %s error', (_name, error, kind) => {
    expect(error.kind).toBe(kind);
    expect(answer(error).status).toBe(EXPECTED[kind][0]);
  });

  it('adds currentStatus to a refused control, worded for a user', () => {
    expect(answer(new ControlNotAllowedError('resume', 't1', 'completed', 'queued')).body).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: controlRefusal('resume', 'completed'),
      currentStatus: 'completed',
    });
  });

  it('answers the active-task limit with activeTasks and Retry-After', () => {
    const sent = answer(new ActiveTaskLimitError(7, 7));
    expect(sent.headers).toEqual({ 'Retry-After': '30' });
    expect(sent.body).toMatchObject({ statusCode: 429, activeTasks: 7 });
  });

  it('joins the problems of invalid input, at most 20', () => {
    const problems = Array.from({ length: 25 }, (_, index) => `field${index} is wrong`);
    const message = answer(new InvalidTaskInputError(problems)).body.message as string;
    expect(message.startsWith('field0 is wrong; field1 is wrong')).toBe(true);
    expect(message).not.toContain('field20 is wrong');
  });

  it('keeps an HttpException as Nest made it', () => {
    expect(answer(new NotFoundException('no such route')).body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'no such route',
    });
  });

  it('answers anything else with a 500 that hides the cause, and logs the cause', () => {
    const sent = answer(new Error('secret detail'));
    expect(sent.body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'internal error' });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('secret detail'));
  });

  it('answers a domain error that declares no kind with a logged 500', () => {
    class Kindless extends DomainError {
      readonly kind = undefined as unknown as DomainErrorKind;
    }
    expect(answer(new Kindless('no kind')).status).toBe(500);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('no kind'));
  });
});
