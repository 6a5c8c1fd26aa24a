import type { ChatMessage, ToolCall } from './model-provider';

/** Output tokens one model call may produce; the runtime reserves spend for this many. */
export const MAX_OUTPUT_TOKENS = 4096;

/**
 * A failed model call, classified for the retry policy: `retryable` means the same call may succeed
 * later (rate limit, overload, server or network trouble); otherwise the request itself is wrong.
 */
export class ModelProviderError extends Error {
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly provider: string;

  constructor(
    provider: string,
    message: string,
    fields: { retryable: boolean; status?: number; cause?: unknown },
  ) {
    super(message, { cause: fields.cause });
    this.name = 'ModelProviderError';
    this.provider = provider;
    this.retryable = fields.retryable;
    this.status = fields.status;
  }
}

/** 408/409/429 and 5xx (529 is Anthropic's "overloaded") may pass later; other 4xx never will. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What an aborted call rejects with: the signal's reason, as the scripted provider does. */
export function abortError(signal: AbortSignal, fallback?: unknown): Error {
  if (signal.reason instanceof Error) return signal.reason;
  if (fallback instanceof Error) return fallback;
  return new Error('aborted');
}

/** Settles as soon as the signal aborts, even while an SDK sleeps between its own retries. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Both APIs reject a history where a tool call lacks its result or a result names no call. The
 * runtime always pairs them; this keeps a slip (a slice cut between calls) from becoming a 400.
 * Results stay right after their assistant turn; a missing one is answered as not executed.
 */
export function pairToolResults(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: ToolCall[] = [];
  const flush = () => {
    for (const call of pending) {
      out.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: JSON.stringify({ error: 'not executed' }),
        isError: true,
      });
    }
    pending = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const index = pending.findIndex((call) => call.id === message.toolCallId);
      if (index >= 0) {
        pending.splice(index, 1);
        out.push(message);
      }
      continue;
    }
    flush();
    out.push(message);
    if (message.role === 'assistant') pending = [...message.toolCalls];
  }
  flush();
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tool results travel as JSON text; structured APIs get the value back when it parses. */
export function parseToolContent(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}
