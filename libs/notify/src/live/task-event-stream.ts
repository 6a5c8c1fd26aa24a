import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ClockConfig } from '@vigil/config';
import { parseTaskEvent, TaskEvent } from '@vigil/events';
import { RedisKeys } from '@vigil/redis';
import {
  LIVE_WATCH_RENEW_MS,
  parseLiveEvent,
  TERMINAL_STATUSES,
  TaskRecord,
  type LiveEvent,
  type LiveWatchers,
} from '@vigil/tasks';
import { producesMessage } from '../messages/compose';
import type { MessageLog } from '@vigil/tasks';
import { eventMessageId, UserMessage } from '../messages/user-message';
import { mergeRead, type ReadEntry, type StreamReply } from './merged-read';
import { OpenCalls } from './open-calls';
import { liveFrameId, parseResumeId, streamIdTime, type ResumePoint } from './resume-point';
import { liveFrame, SSE_HEARTBEAT, sseFrame } from './sse-frame';

/** Events are ids of the shard's stream; a task's first event is no older than this before createdAt. */
const CLOCK_SKEW_MS = 60_000;
/** How long a fresh event waits for the notifier to produce its message before it is sent without. */
const MESSAGE_WAIT_MS = 2_000;
const MESSAGE_POLL_MS = 25;
const TERMINAL_EVENTS = new Set(['task.completed', 'task.failed', 'task.cancelled']);
const READ_COUNT = 200;
/**
 * After the task's last event, how long its stream waits for calls still writing to end: a stop
 * ends the task first and the Worker's `model.call_abandoned` follows within milliseconds.
 */
export const LIVE_TAIL_MS = 3_000;

/** Where a stream writes: `write` is false when the client's buffer is full, `drained` waits until it is not. */
export interface SseSink {
  write(chunk: string): boolean;
  drained(): Promise<void>;
}

/** What one stream has sent so far and still waits for. */
interface StreamState {
  point: ResumePoint;
  calls: OpenCalls;
  /** When the task's terminal event was written, once it was sent. */
  endedAt?: number;
}

/**
 * One task's live stream, read from its shard's event stream and its live model output
 * (docs/api.md, "Live model output") with one XREAD BLOCK: replays from the Last-Event-ID (or
 * from the task's creation), then follows, in the order things were written. Ends after the
 * task's terminal event once no call is still writing (LIVE_TAIL_MS at most), or at once when
 * the task had already ended and nothing after the Last-Event-ID is left to send. A client that
 * reads slowly slows only its own reads: nothing is read for it while its buffer is full.
 */
export class TaskEventStream implements BeforeApplicationShutdown {
  /** Open streams, ended on shutdown: an open SSE response would otherwise hold the HTTP server. */
  private readonly open = new Set<AbortController>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly config: ClockConfig,
    private readonly log: MessageLog,
    private readonly watchers: Pick<LiveWatchers, 'mark'>,
  ) {}

  async pipe(
    task: TaskRecord,
    lastEventId: string | undefined,
    sink: SseSink,
    client: AbortSignal,
  ): Promise<void> {
    const shutdown = new AbortController();
    const signal = AbortSignal.any([client, shutdown.signal]);
    // A blocking read holds its connection, so each client reads on its own.
    const connection = this.redis.duplicate();
    const close = () => connection.disconnect();
    signal.addEventListener('abort', close, { once: true });
    this.open.add(shutdown);
    const watching = TERMINAL_STATUSES.includes(task.status) ? undefined : await this.watch(task.id);
    try {
      await this.follow(connection, task, lastEventId, sink, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      clearInterval(watching);
      this.open.delete(shutdown);
      signal.removeEventListener('abort', close);
      connection.disconnect();
    }
  }

  /**
   * Marks the task watched while this stream is open, so its Workers publish the model's text
   * (docs/api.md, "Live model output"); marked before the first read, renewed on a timer. A mark
   * Redis refuses (a full Redis) costs this stream the live text, never its durable events.
   */
  private async watch(taskId: string): Promise<NodeJS.Timeout> {
    const mark = () => this.watchers.mark(taskId).catch(() => undefined);
    await mark();
    const timer = setInterval(() => void mark(), LIVE_WATCH_RENEW_MS);
    timer.unref();
    return timer;
  }

  /** Nest calls this on shutdown (the provider is a singleton of LiveEventsModule). */
  beforeApplicationShutdown(): void {
    for (const stream of this.open) stream.abort();
  }

  private async follow(
    connection: Redis,
    task: TaskRecord,
    lastEventId: string | undefined,
    sink: SseSink,
    signal: AbortSignal,
  ): Promise<void> {
    const keys = {
      events: this.keys.events(this.keys.shardOf(task.id)),
      live: this.keys.liveOutput(task.id),
    };
    const endedBefore = TERMINAL_STATUSES.includes(task.status);
    const heartbeatMs = this.config.sseHeartbeatMs;
    const state: StreamState = {
      point: (lastEventId && parseResumeId(lastEventId)) || {
        events: `${Math.max(0, task.createdAt - CLOCK_SKEW_MS)}-0`,
        live: '0-0',
      },
      calls: new OpenCalls(),
    };
    let lastBeat = Date.now();
    sink.write(`retry: 1000\n\n`);
    while (!signal.aborted) {
      const tail = state.endedAt !== undefined;
      if (tail && (state.calls.size === 0 || Date.now() >= state.endedAt! + LIVE_TAIL_MS)) return;
      // An ended task is only drained (no blocking): its terminal event is already in the stream.
      const drainOnly = endedBefore && !tail;
      const wait = Math.max(
        1,
        Math.min(
          heartbeatMs - (Date.now() - lastBeat),
          tail ? state.endedAt! + LIVE_TAIL_MS - Date.now() : Infinity,
        ),
      );
      // After the terminal event only the live output is left to follow.
      const streams = tail
        ? [keys.live, state.point.live]
        : [keys.events, keys.live, state.point.events, state.point.live];
      const read = connection.xread.bind(connection) as unknown as (
        ...args: (string | number)[]
      ) => Promise<StreamReply>;
      const reply = await read(
        'COUNT',
        READ_COUNT,
        ...(drainOnly ? [] : ['BLOCK', wait]),
        'STREAMS',
        ...streams,
      );
      const entries = mergeRead(reply, keys, READ_COUNT);
      if (entries.length === 0 && drainOnly) return;
      for (const entry of entries) {
        await this.send(entry, task, state, sink, signal);
        if (signal.aborted) return;
      }
      // On a clock, busy or not: a comment every interval is what keeps proxies and clients sure.
      if (Date.now() - lastBeat >= heartbeatMs) {
        sink.write(SSE_HEARTBEAT);
        lastBeat = Date.now();
      }
    }
  }

  /** Sends one entry, if it is the task's and still due, and moves the stream's cursors past it. */
  private async send(
    entry: ReadEntry,
    task: TaskRecord,
    state: StreamState,
    sink: SseSink,
    signal: AbortSignal,
  ): Promise<void> {
    const { point, calls } = state;
    let chunks: string[] = [];
    if (entry.source === 'live') {
      point.live = entry.id;
      const stored = parseLiveEvent(entry.id, entry.fields);
      if (stored && calls.observe(stored)) {
        const { id: _id, ...event } = stored;
        chunks = [liveFrame(liveFrameId(point), task.id, event, streamIdTime(entry.id))];
      }
    } else {
      // Durable events of the task only; after its terminal event there are none.
      if (state.endedAt !== undefined) return;
      point.events = entry.id;
      const event = parseTaskEvent(this.keys.shardOf(task.id), entry.id, entry.fields);
      if (event.taskId !== task.id) return;
      chunks = [sseFrame(event, await this.messageFor(event, signal)), ...this.callsEndedBy(event, state)];
      if (TERMINAL_EVENTS.has(event.type)) state.endedAt = event.at;
    }
    for (const chunk of chunks) {
      if (!sink.write(chunk)) await sink.drained();
    }
  }

  /**
   * A durable event of a later attempt: the calls of earlier attempts still open here were cut
   * off by the recovery (or resume) that started it, their Worker perhaps dead and never saying
   * so itself. They are closed here, and whatever they still send is dropped (OpenCalls).
   */
  private callsEndedBy(event: TaskEvent, state: StreamState): string[] {
    if (state.calls.size === 0) return [];
    return state.calls.closeBefore(event.attempt).map(({ callId, attempt }) => {
      const abandoned: LiveEvent = { type: 'model.call_abandoned', attempt, callId, reason: 'recovered' };
      return liveFrame(liveFrameId(state.point), event.taskId, abandoned, event.at);
    });
  }

  /** The user message the notifier produced from this event, waiting briefly for a fresh one. */
  private async messageFor(event: TaskEvent, signal: AbortSignal): Promise<UserMessage | null> {
    if (!producesMessage(event.type)) return null;
    const id = eventMessageId(event.taskId, event.id);
    const deadline = Math.min(Date.now() + MESSAGE_WAIT_MS, event.at + MESSAGE_WAIT_MS * 2);
    for (;;) {
      const message = await this.log.find(event.taskId, id);
      if (message || Date.now() >= deadline || signal.aborted) return message;
      await new Promise((resolve) => setTimeout(resolve, MESSAGE_POLL_MS));
    }
  }
}
