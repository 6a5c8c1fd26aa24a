/**
 * The model's live output: what a model call writes while it runs, for whoever follows the task
 * (docs/api.md, "Live model output"). Not part of the task's history: no durable event, no
 * message, no step; kept briefly so that a client that reconnects resumes where it was.
 */

/** How long a task's live output stays after its expiry was last set (the key's expiry). */
export const LIVE_OUTPUT_WINDOW_MS = 60_000;

/**
 * A writer sets the expiry again when it last did this long ago: in between it only appends, so
 * the output stays between LIVE_OUTPUT_WINDOW_MS − this and LIVE_OUTPUT_WINDOW_MS after its last entry.
 */
export const EXPIRY_REFRESH_MS = 15_000;

/**
 * Entries kept per task (trimmed approximately, so up to a stream node more may stay): ten
 * seconds of one call writing at the fastest publish rate, a few kilobytes to tens per task.
 */
export const LIVE_OUTPUT_MAX_ENTRIES = 200;

/** Why a call was cut off before it answered. */
export type AbandonReason = 'stopped' | 'paused' | 'recovered' | 'deadline' | 'drain' | 'failed';

export const LIVE_EVENT_TYPES = ['model.delta', 'model.call_abandoned'] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

/** Text the model wrote: `offset` is where `text` starts in the call's text; `final` ends the call. */
export interface ModelDelta {
  type: 'model.delta';
  attempt: number;
  callId: string;
  text: string;
  offset: number;
  final?: true;
}

/** A call cut off by a stop, a pause, a recovery, its deadline, a drain, or a failure. */
export interface ModelCallAbandoned {
  type: 'model.call_abandoned';
  attempt: number;
  callId: string;
  reason: AbandonReason;
}

export type LiveEvent = ModelDelta | ModelCallAbandoned;

/** A live event as stored: `id` is its entry id in the task's live stream. */
export type StoredLiveEvent = LiveEvent & { id: string };

/** The one field an entry has (publish-live-output.lua): the event as JSON. */
const FIELD = 'e';

/** Decodes an entry; undefined for one that is not a live event (nothing else writes the key). */
export function parseLiveEvent(id: string, flat: string[]): StoredLiveEvent | undefined {
  const index = flat.indexOf(FIELD);
  if (index < 0 || index % 2 !== 0) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(flat[index + 1]);
  } catch {
    return undefined;
  }
  if (typeof event !== 'object' || event === null) return undefined;
  const type = (event as { type?: unknown }).type;
  if (!LIVE_EVENT_TYPES.includes(type as LiveEventType)) return undefined;
  return { ...(event as LiveEvent), id };
}
