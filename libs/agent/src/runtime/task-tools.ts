import type { BoundKind, KindTool } from '@vigil/kinds';
import type { HeartbeatTimer } from './heartbeat-timer';

/** A tool's progress reports beat at most this often (each is a Redis write). */
export const PROGRESS_BEAT_MS = 1000;

/**
 * A task's tools for one slice (docs/missions.md, "The mission kind"): the kind's own, and the
 * task's from the catalog for a kind that has them, resolved once per slice so the allow list is
 * checked again and a restarted server is picked up. When they cannot be had, why (the slice then
 * fails its attempt, saying so); an abort of the slice is rethrown.
 */
export async function resolveTaskTools(bound: BoundKind, signal: AbortSignal): Promise<KindTool[] | string> {
  try {
    return await bound.tools();
  } catch (error) {
    signal.throwIfAborted();
    return `the task's tools are not available: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * A tool's progress report is proof of life: it restarts the heartbeat interval and beats now, at
 * most once a PROGRESS_BEAT_MS, so a long call that reports progress is never taken for stale.
 */
export function progressHeartbeat(heartbeat: HeartbeatTimer, beat: () => Promise<unknown>): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < PROGRESS_BEAT_MS) return;
    last = now;
    heartbeat.touch();
    void beat();
  };
}
