import { createHash } from 'node:crypto';

/**
 * Ids derived from a task's id (docs/observability.md, "One trace per task"): every process
 * computes the same trace id and the same parent span ids from the id alone, so the API, the
 * Workers, the Watcher and the Notifier add to one trace without passing a context through Redis.
 */

function digestHex(text: string, bytes: number): string {
  const hex = createHash('sha256')
    .update(text)
    .digest('hex')
    .slice(0, bytes * 2);
  // An all-zero id is invalid in W3C Trace Context; a SHA-256 prefix of zeros is as good as never.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The task's trace id: the first 16 bytes of SHA-256 of its id, as 32 hex digits. */
export function taskTraceId(taskId: string): string {
  return digestHex(taskId, 16);
}

/** The span id of the task's root span (the API's `task.create`): 8 bytes, 16 hex digits. */
export function taskRootSpanId(taskId: string): string {
  return digestHex(`${taskId}\nroot`, 8);
}

/** The span id of one attempt of the task: every slice, model and tool call of the attempt hangs under it. */
export function attemptSpanId(taskId: string, attempt: number): string {
  return digestHex(`${taskId}\nattempt\n${attempt}`, 8);
}

/** A W3C `traceparent` header value (version 00, sampled). */
export function traceparentOf(traceId: string, spanId: string, sampled = true): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}
