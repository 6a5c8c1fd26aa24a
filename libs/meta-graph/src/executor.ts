import { createHmac } from 'node:crypto';
import {
  MetaApiError,
  MetaRequestAbortedError,
  MetaTransportError,
  MetaWriteOutcomeUnknownError,
  type WriteOutcomeReason,
} from './errors';
import { backoffDelay, isRateLimit, isRetryableApiError, serverSuggestedWaitMs } from './retry-policy';
import { abortableSleep, defaultSleep, throwIfAborted } from './sleep';
import { sendOnce, type HttpResponse } from './transport';
import type { MetaGraphClientOptions } from './types';

/** A create whose result may be lost in transit; such calls are never blindly retried. */
export interface WriteIntent {
  operation: string;
  parentId: string;
  name: string;
}

export interface GraphCall {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `act_1/campaigns`, or an absolute URL for paging links. */
  path: string;
  params?: Record<string, string>;
  write?: WriteIntent;
}

type Resolved = Required<Omit<MetaGraphClientOptions, 'appSecret' | 'onRetry'>> &
  Pick<MetaGraphClientOptions, 'appSecret' | 'onRetry'>;

function resolveOptions(opts: MetaGraphClientOptions): Resolved {
  return {
    timeoutMs: 15_000,
    maxRetries: 5,
    backoffMs: 200,
    maxBackoffMs: 30_000,
    rateLimitBackoffFactor: 5,
    maxRateLimitWaitMs: 120_000,
    maxPages: 100,
    sleep: defaultSleep,
    random: Math.random,
    fetch: globalThis.fetch.bind(globalThis),
    ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
  } as Resolved;
}

/** Turns a response into its JSON body, or an error (API envelope, or a non-Graph HTTP failure). */
function interpret(res: HttpResponse): { body: unknown } | { error: MetaApiError | MetaTransportError } {
  let body: unknown;
  try {
    body = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    body = undefined;
  }
  const envelope = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (envelope && typeof envelope === 'object' && typeof envelope.code === 'number') {
    const code = envelope.code;
    const isTransient = envelope.is_transient === true ? true : undefined;
    return {
      error: new MetaApiError({
        code,
        subcode: typeof envelope.error_subcode === 'number' ? envelope.error_subcode : undefined,
        type: String(envelope.type ?? 'OAuthException'),
        message: String(envelope.message ?? `Graph error ${code}`),
        fbtraceId: typeof envelope.fbtrace_id === 'string' ? envelope.fbtrace_id : undefined,
        httpStatus: res.status,
        retryable: isRetryableApiError(code, res.status, isTransient),
        isTransient,
        userTitle: typeof envelope.error_user_title === 'string' ? envelope.error_user_title : undefined,
        userMessage: typeof envelope.error_user_msg === 'string' ? envelope.error_user_msg : undefined,
      }),
    };
  }
  if (res.status >= 200 && res.status < 300 && body !== undefined) return { body };
  if (res.status >= 500 || (res.status >= 200 && res.status < 300)) {
    return { error: new MetaTransportError('bad_response', `HTTP ${res.status} without a Graph body`, true) };
  }
  return {
    error: new MetaApiError({
      code: -1,
      type: 'HttpError',
      message: `HTTP ${res.status}: ${res.text.slice(0, 200)}`,
      httpStatus: res.status,
      retryable: res.status === 429,
    }),
  };
}

const OUTCOME_REASON: Record<MetaTransportError['kind'], WriteOutcomeReason> = {
  timeout: 'timeout',
  connection: 'connection_dropped',
  bad_response: 'bad_response',
};

/** Sends Graph calls with auth, timeouts, abort, and retry/backoff; creates surface unknown outcomes. */
export class GraphExecutor {
  readonly opts: Resolved;
  private readonly baseUrl: string;
  private readonly proof?: string;

  constructor(options: MetaGraphClientOptions) {
    this.opts = resolveOptions(options);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    if (options.appSecret) {
      this.proof = createHmac('sha256', options.appSecret).update(options.accessToken).digest('hex');
    }
  }

  async call<T>(call: GraphCall, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      throwIfAborted(signal);
      const outcome = await this.attempt(call, signal);
      if ('body' in outcome) return outcome.body as T;
      const { error, headers } = outcome;
      const exhausted = attempt >= this.opts.maxRetries;
      if (!(error instanceof MetaTransportError) && !error.retryable) throw error;
      if (exhausted) throw error;
      const delayMs = this.delayFor(error, headers, attempt);
      this.opts.onRetry?.({ path: call.path, attempt: attempt + 1, delayMs, error });
      await abortableSleep(this.opts.sleep, delayMs, signal);
    }
  }

  private delayFor(
    error: MetaApiError | MetaTransportError,
    headers: Headers | undefined,
    attempt: number,
  ): number {
    const rateLimited = error instanceof MetaApiError && isRateLimit(error.code, error.httpStatus);
    const backoff = backoffDelay(attempt, rateLimited, {
      backoffMs: this.opts.backoffMs,
      maxBackoffMs: this.opts.maxBackoffMs,
      rateLimitFactor: this.opts.rateLimitBackoffFactor,
      random: this.opts.random,
    });
    const suggested = rateLimited && headers ? serverSuggestedWaitMs(headers) : undefined;
    return suggested === undefined
      ? backoff
      : Math.max(backoff, Math.min(suggested, this.opts.maxRateLimitWaitMs));
  }

  /** One attempt; returns the body or a retry candidate, throws final errors. */
  private async attempt(
    call: GraphCall,
    signal?: AbortSignal,
  ): Promise<{ body: unknown } | { error: MetaApiError | MetaTransportError; headers?: Headers }> {
    const params: Record<string, string> = { ...call.params, access_token: this.opts.accessToken };
    if (this.proof) params.appsecret_proof = this.proof;
    const encoded = new URLSearchParams(params).toString();
    const target = /^https?:\/\//.test(call.path)
      ? call.path
      : `${this.baseUrl}/${call.path.replace(/^\/+/, '')}`;
    let res: HttpResponse;
    try {
      res =
        call.method === 'GET'
          ? await sendOnce(
              this.opts.fetch,
              { method: 'GET', url: withQuery(target, encoded) },
              this.opts.timeoutMs,
              signal,
            )
          : await sendOnce(
              this.opts.fetch,
              {
                method: 'POST',
                url: target,
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: encoded,
              },
              this.opts.timeoutMs,
              signal,
            );
    } catch (err) {
      if (call.write && err instanceof MetaRequestAbortedError)
        throw this.unknown(call.write, 'aborted', err);
      if (!(err instanceof MetaTransportError)) throw err;
      if (call.write && err.maybeDelivered) throw this.unknown(call.write, OUTCOME_REASON[err.kind], err);
      return { error: err };
    }
    const result = interpret(res);
    if ('body' in result) return result;
    if (call.write && result.error instanceof MetaTransportError) {
      throw this.unknown(call.write, 'bad_response', result.error);
    }
    // A create answered with a server error may still have been committed (Meta's code 1/2 "unknown
    // error" can follow a commit): sending it again could make a second object, so the journal
    // reconciles it instead. Rate limits are refused before any work and stay retryable.
    const apiError = result.error;
    if (
      call.write &&
      apiError instanceof MetaApiError &&
      (apiError.httpStatus >= 500 || apiError.isTransient === true) &&
      !isRateLimit(apiError.code, apiError.httpStatus)
    ) {
      throw this.unknown(call.write, 'server_error', apiError);
    }
    return { error: result.error, headers: res.headers };
  }

  private unknown(
    write: WriteIntent,
    reason: WriteOutcomeReason,
    cause: Error,
  ): MetaWriteOutcomeUnknownError {
    return new MetaWriteOutcomeUnknownError(write.operation, write.parentId, write.name, reason, { cause });
  }
}

/** Merges encoded params into a URL that may already carry a query (paging links). */
function withQuery(target: string, encoded: string): string {
  const url = new URL(target);
  for (const [key, value] of new URLSearchParams(encoded)) url.searchParams.set(key, value);
  return url.href;
}
