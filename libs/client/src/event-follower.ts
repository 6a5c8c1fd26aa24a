import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { VigilApiError } from './client-errors';
import {
  EventStreamProtocolError,
  parseEventFrame,
  TERMINAL_EVENT_TYPES,
  type TaskEventFrame,
} from './task-events';

/**
 * Opens one connection to a task's event stream, resuming after `lastEventId` when given; answers
 * the body as text chunks. Throws VigilApiError for a refused request and VigilConnectionError when
 * nothing answered.
 */
export type OpenEventStream = (
  lastEventId: string | undefined,
  signal: AbortSignal,
) => Promise<AsyncIterable<string>>;

export interface FollowOptions {
  /** Resume after this event (the `id` of the last frame seen); default: from the task's creation. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** How long reconnecting may keep failing before the last error is thrown (default 2 minutes). */
  reconnectForMs?: number;
  /** The longest wait between two reconnects (default 10 s). */
  maxDelayMs?: number;
  /** Told before each reconnect: after which event it resumes, why, and after how long. */
  onReconnect?: (info: { lastEventId?: string; error?: unknown; delayMs: number }) => void;
}

/** Refusals worth trying again: too many streams open, a proxy or the API restarting. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
/** The first wait, until the server's `retry:` says otherwise. */
const DEFAULT_RETRY_MS = 1_000;

/**
 * Whether a failed connection is tried again. Before any connection succeeded only a retryable
 * refusal is (nothing answering means the API is not there); after one, anything but a refusal for
 * good or a broken protocol is (a stream cut in the middle, an API restarting).
 */
function retryable(error: unknown, connectedBefore: boolean): boolean {
  if (error instanceof EventStreamProtocolError) return false;
  if (error instanceof VigilApiError) return RETRYABLE_STATUSES.has(error.status);
  return connectedBefore;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * A task's events, in order, across reconnects (docs/cli.md, "The typed client"): when a stream
 * breaks before the task's terminal event, it reconnects with `Last-Event-ID` set to the last frame
 * seen, so no durable event is missed or repeated, waiting as the server's `retry:` says and
 * doubling up to `maxDelayMs` while reconnecting fails.
 *
 * It ends after a terminal event (`task.completed`, `task.failed`, `task.cancelled`), or when a
 * connection ends cleanly without a single event: the API ends a finished task's stream at once
 * when nothing is left after `Last-Event-ID`. A caller that needs to know why it ended reads the
 * task. The very first connection is not retried when nothing answers (the API is not there) or
 * when it is refused for good (401, 404); later ones are, for `reconnectForMs`.
 */
export async function* followEvents(
  open: OpenEventStream,
  options: FollowOptions = {},
): AsyncGenerator<TaskEventFrame, void, undefined> {
  const outer = options.signal ?? new AbortController().signal;
  const reconnectForMs = options.reconnectForMs ?? 120_000;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  let lastEventId = options.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  let connected = false;
  let failingSince: number | undefined;
  let failures = 0;

  while (!outer.aborted) {
    const connection = new AbortController();
    const signal = AbortSignal.any([outer, connection.signal]);
    let delivered = 0;
    let failure: unknown;
    try {
      const chunks = await open(lastEventId, signal);
      connected = true;
      const frames: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => frames.push(message),
        onRetry: (ms) => (retryMs = ms),
      });
      for await (const chunk of chunks) {
        parser.feed(chunk);
        while (frames.length > 0) {
          const message = frames.shift()!;
          const frame = parseEventFrame(message.data, message.id, message.event);
          if (message.id) lastEventId = message.id;
          delivered++;
          failures = 0;
          failingSince = undefined;
          yield frame;
          if (TERMINAL_EVENT_TYPES.includes(frame.type)) return;
        }
      }
      // Ended cleanly with nothing to say: the task had ended before lastEventId's successor.
      if (delivered === 0) return;
      continue;
    } catch (error) {
      if (outer.aborted) return;
      if (!retryable(error, connected)) throw error;
      failure = error;
    } finally {
      // Ends this connection's request when the caller stops early (break, return, throw).
      connection.abort();
    }
    failingSince ??= Date.now();
    if (Date.now() - failingSince >= reconnectForMs) throw failure;
    const retryAfterMs =
      failure instanceof VigilApiError && failure.retryAfterS ? failure.retryAfterS * 1000 : 0;
    const delayMs = Math.min(maxDelayMs, Math.max(retryAfterMs, retryMs * 2 ** failures));
    failures++;
    options.onReconnect?.({ lastEventId, error: failure, delayMs });
    await sleep(delayMs, outer);
  }
}
