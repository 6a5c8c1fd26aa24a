import type { StoredLiveEvent } from '@vigil/tasks';

/** Closed call ids remembered per stream, to drop what a cut-off call still sends. */
const CLOSED_KEPT = 1_000;

/**
 * The model calls one SSE stream saw writing and not yet end (a final delta or an abandonment):
 * the stream waits for them briefly after the task's last event, and closes the calls of an
 * attempt that a recovery replaced, whose Worker may be dead and never say so itself.
 */
export class OpenCalls {
  private readonly open = new Map<string, number>();
  private readonly closed = new Set<string>();

  get size(): number {
    return this.open.size;
  }

  /** Notes a live event; false if its call was already closed here (it is not sent again). */
  observe(event: StoredLiveEvent): boolean {
    if (this.closed.has(event.callId)) return false;
    if (event.type === 'model.delta' && !event.final) this.open.set(event.callId, event.attempt);
    else this.close(event.callId);
    return true;
  }

  /** Closes the calls of attempts before `attempt` and returns them. */
  closeBefore(attempt: number): { callId: string; attempt: number }[] {
    const ended: { callId: string; attempt: number }[] = [];
    for (const [callId, callAttempt] of this.open) {
      if (callAttempt >= attempt) continue;
      ended.push({ callId, attempt: callAttempt });
      this.close(callId);
    }
    return ended;
  }

  private close(callId: string): void {
    this.open.delete(callId);
    this.closed.add(callId);
    if (this.closed.size > CLOSED_KEPT) this.closed.delete(this.closed.values().next().value as string);
  }
}
