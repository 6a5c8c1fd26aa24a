import { randomBytes } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  EXPIRY_REFRESH_MS,
  LiveOutputChannel,
  StaleAttemptError,
  TaskNotActiveError,
  type AbandonReason,
  type LiveEvent,
  type ModelDelta,
} from '@vigil/tasks';
import { DrainDeadlineError, SliceAbortedError } from './active-slices';
import { HungCallError } from './call-watchdog';
import type { WatchedTasks } from './watched-tasks';

/** A call's text goes out at most this often... */
export const FLUSH_INTERVAL_MS = 50;
/** ...unless this much piled up since the last publish. */
export const FLUSH_CHARS = 200;
/**
 * Text a call keeps while nobody watches its task, published when someone starts to; past it the
 * oldest is dropped (the next delta's offset says where its text starts).
 */
export const UNWATCHED_TEXT_KEPT = 16_384;
/** Events this process may have unanswered; past it, text waits in its call's buffer. */
const MAX_PUBLISHES_IN_FLIGHT = 1_024;
/** A failing publish is logged at most this often (with how many failed since). */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/** Why a call was cut off, from what aborted its slice (slice-runner.ts). */
export function abandonReasonOf(reason: unknown): AbandonReason {
  if (reason instanceof HungCallError) return 'deadline';
  if (reason instanceof SliceAbortedError)
    return reason.action === 'pause' ? 'paused' : reason.action === 'recover' ? 'recovered' : 'stopped';
  if (reason instanceof DrainDeadlineError) return 'drain';
  // The heartbeat was refused: another attempt owns the task now, or it is no longer running.
  if (reason instanceof StaleAttemptError) return 'recovered';
  if (reason instanceof TaskNotActiveError) {
    if (reason.currentStatus === 'cancelled') return 'stopped';
    return reason.currentStatus === 'paused' ? 'paused' : 'recovered';
  }
  return 'failed';
}

/**
 * The live output of one model call (docs/api.md, "Live model output"): text is buffered and
 * published at most every FLUSH_INTERVAL_MS or FLUSH_CHARS, one publish of the call unanswered
 * at a time, so a fast model costs a few Redis round trips per second whatever its token rate.
 * `end` publishes what is left as the call's final delta; `abandon` says the call was cut off.
 * Nothing here is awaited by the call: publishing never slows the model or the slice. While
 * nobody watches the task, nothing is published: the call keeps its text (UNWATCHED_TEXT_KEPT)
 * and a watcher who comes gets it from the call's start, at the ticker's next look.
 */
export class LiveCallOutput {
  private buffer = '';
  /** Characters published so far: the next delta's offset. */
  private published = 0;
  private lastFlush = Date.now();
  private sending = false;
  private closed = false;

  constructor(
    private readonly output: LiveModelOutput,
    readonly slice: LiveCalls,
    readonly attempt: number,
    readonly callId: string,
  ) {}

  get taskId(): string {
    return this.slice.taskId;
  }

  /** Bound to the call (a request's `onText`). */
  readonly text = (delta: string): void => {
    if (this.closed || !delta) return;
    const waiting = this.buffer.length > 0;
    this.buffer += delta;
    if (!this.output.watching(this.taskId)) return this.keepUnwatched();
    if (this.buffer.length >= FLUSH_CHARS) return this.flush();
    // Text already waiting is the ticker's: only the first piece after a publish looks at the clock.
    if (waiting) return;
    if (Date.now() - this.lastFlush >= FLUSH_INTERVAL_MS) this.flush();
    else this.output.due(this);
  };

  /** The ticker's turn: publishes if the interval passed; true while text still waits. */
  tick(now: number): boolean {
    if (this.closed || !this.buffer) return false;
    if (now - this.lastFlush >= FLUSH_INTERVAL_MS) this.flush();
    return this.buffer.length > 0;
  }

  /** The call answered: what is left goes out marked final (nothing, for a call that wrote nothing). */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.buffer && this.published === 0) return;
    // A call nobody saw ends unseen; one whose text went out ends for whoever followed it.
    if (this.published === 0 && !this.output.watching(this.taskId)) return;
    this.output.send(this, this.delta(true));
  }

  /** The call was cut off: text not yet published is dropped with it. */
  abandon(reason: AbandonReason): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = '';
    if (this.published === 0 && !this.output.watching(this.taskId)) return;
    const { attempt, callId } = this;
    this.output.send(this, { type: 'model.call_abandoned', attempt, callId, reason });
  }

  private flush(): void {
    if (!this.output.watching(this.taskId)) return this.keepUnwatched();
    if (this.sending || !this.buffer || !this.output.hasRoom()) return void this.output.due(this);
    this.output.send(this, this.delta(false));
  }

  /**
   * Nobody watches: the text stays here, its oldest part dropped past UNWATCHED_TEXT_KEPT, and the
   * ticker looks again, so a watcher who comes while the call waits (on a slow model) gets it.
   */
  private keepUnwatched(): void {
    this.output.due(this);
    const over = this.buffer.length - UNWATCHED_TEXT_KEPT;
    if (over <= 0) return;
    this.buffer = this.buffer.slice(over);
    this.published += over;
  }

  private delta(final: boolean): LiveEvent {
    const text = this.buffer;
    const offset = this.published;
    this.buffer = '';
    this.published += text.length;
    this.lastFlush = Date.now();
    const delta: ModelDelta = {
      type: 'model.delta',
      attempt: this.attempt,
      callId: this.callId,
      text,
      offset,
    };
    if (final) delta.final = true;
    return delta;
  }

  /** LiveModelOutput's answer to a publish of this call. */
  settled(): void {
    this.sending = false;
    if (!this.closed && this.buffer) this.output.due(this);
  }

  /** LiveModelOutput took a publish of this call. */
  sent(): void {
    this.sending = true;
  }
}

/** This process's part of every call id: random once, not per slice (randomBytes is a system call). */
const PROCESS_TAG = randomBytes(6).toString('hex');
/** Slices of this process so far: the rest of a slice's prefix. */
let slicesOpened = 0;

/** The calls of one slice: each gets an id unique across processes and attempts. */
export class LiveCalls {
  private count = 0;
  private readonly prefix = `${PROCESS_TAG}${(++slicesOpened).toString(36)}`;
  /** When this slice last set the expiry of the task's live output (0: not yet). */
  private expirySetAt = 0;

  constructor(
    private readonly output: LiveModelOutput,
    readonly taskId: string,
    readonly attempt: number,
  ) {}

  open(): LiveCallOutput {
    return new LiveCallOutput(this.output, this, this.attempt, `${this.prefix}-${++this.count}`);
  }

  /** Whether a publish now must set the key's expiry again (and notes that it will). */
  expiryDue(now = Date.now()): boolean {
    if (now - this.expirySetAt < EXPIRY_REFRESH_MS) return false;
    this.expirySetAt = now;
    return true;
  }
}

/** What one task's calls handed over since the last publish. */
interface Outgoing {
  events: LiveEvent[];
  expire: boolean;
  calls: LiveCallOutput[];
}

/**
 * The Worker's publisher of live model output: fire-and-forget (a publish is never awaited by a
 * call), batched (what every call hands over in one turn of the event loop goes out in one
 * publish, a script call per shard), bounded (at most MAX_PUBLISHES_IN_FLIGHT events unanswered;
 * past it, text waits in its call's buffer, which the call's own output bound limits), with one
 * timer for every call whose text waits.
 */
@Injectable()
export class LiveModelOutput implements OnApplicationShutdown {
  private readonly logger = new Logger(LiveModelOutput.name);
  private readonly waiting = new Set<LiveCallOutput>();
  private timer?: NodeJS.Timeout;
  private outbox = new Map<string, Outgoing>();
  private publishScheduled = false;
  private inFlight = 0;
  private failures = 0;
  private lastFailureLog = 0;

  constructor(
    private readonly channel: Pick<LiveOutputChannel, 'publish'>,
    private readonly watched: Pick<WatchedTasks, 'watched'>,
  ) {}

  /** A slice opens: its task's watch mark is looked up now (if not within the interval), before its first call. */
  forSlice(taskId: string, attempt: number): LiveCalls {
    this.watched.watched(taskId);
    return new LiveCalls(this, taskId, attempt);
  }

  /** Whether someone follows the task's live output, as last looked up (watched-tasks.ts). */
  watching(taskId: string): boolean {
    return this.watched.watched(taskId);
  }

  /** Whether a call's text may go out now; a call's last publish goes whatever the answer. */
  hasRoom(): boolean {
    return this.inFlight < MAX_PUBLISHES_IN_FLIGHT;
  }

  /** Hands an event over for the next publish (this turn of the event loop); never waits. */
  send(call: LiveCallOutput, event: LiveEvent): void {
    this.inFlight++;
    call.sent();
    let outgoing = this.outbox.get(call.taskId);
    if (!outgoing) this.outbox.set(call.taskId, (outgoing = { events: [], expire: false, calls: [] }));
    outgoing.events.push(event);
    outgoing.calls.push(call);
    if (call.slice.expiryDue()) outgoing.expire = true;
    if (this.publishScheduled) return;
    this.publishScheduled = true;
    setImmediate(this.publish);
  }

  /** The call has text that waits for the interval (or for its publish to be answered). */
  due(call: LiveCallOutput): void {
    this.waiting.add(call);
    if (this.timer) return;
    // Left running while calls stream: starting a timer per call would cost more than a tick.
    this.timer = setInterval(() => this.tick(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly publish = (): void => {
    this.publishScheduled = false;
    const outbox = this.outbox;
    this.outbox = new Map();
    const batches = [...outbox].map(([taskId, { events, expire }]) => ({ taskId, events, expire }));
    const settle = () => {
      for (const { events, calls } of outbox.values()) {
        this.inFlight -= events.length;
        for (const call of calls) call.settled();
      }
    };
    this.channel.publish(batches).then(settle, (error: unknown) => {
      settle();
      this.failed(batches.length, error);
    });
  };

  private tick(): void {
    const now = Date.now();
    for (const call of this.waiting) if (!call.tick(now)) this.waiting.delete(call);
    if (this.waiting.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private failed(tasks: number, error: unknown): void {
    this.failures++;
    const now = Date.now();
    if (now - this.lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    this.logger.warn(
      `live output of ${tasks} tasks not published (${this.failures} publishes failed since the last report): ${String(error)}`,
    );
    this.failures = 0;
    this.lastFailureLog = now;
  }
}
