import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ClockConfig } from '@vigil/config';
import { parseTaskEvent, TaskEvent } from '@vigil/events';
import { RedisKeys } from '@vigil/redis';
import { TERMINAL_STATUSES, TaskRecord } from '@vigil/tasks';
import { producesMessage } from '../messages/compose';
import type { MessageLog } from '@vigil/tasks';
import { eventMessageId, UserMessage } from '../messages/user-message';
import { SSE_HEARTBEAT, sseFrame } from './sse-frame';

type StreamReply = [string, [string, string[]][]][] | null;

/** Events are ids of the shard's stream; a task's first event is no older than this before createdAt. */
const CLOCK_SKEW_MS = 60_000;
/** How long a fresh event waits for the notifier to produce its message before it is sent without. */
const MESSAGE_WAIT_MS = 2_000;
const MESSAGE_POLL_MS = 25;
const TERMINAL_EVENTS = new Set(['task.completed', 'task.failed', 'task.cancelled']);

export type SseWrite = (chunk: string) => void;

/**
 * One task's live stream, read from its shard's event stream: replays from `lastEventId` (or from
 * the task's creation), then follows with XREAD BLOCK. Ends after the task's terminal event, or at
 * once when the task had already ended and nothing after `lastEventId` is left to send.
 */
export class TaskEventStream implements BeforeApplicationShutdown {
  /** Open streams, ended on shutdown: an open SSE response would otherwise hold the HTTP server. */
  private readonly open = new Set<AbortController>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly config: ClockConfig,
    private readonly log: MessageLog,
  ) {}

  async pipe(
    task: TaskRecord,
    lastEventId: string | undefined,
    write: SseWrite,
    client: AbortSignal,
  ): Promise<void> {
    const shutdown = new AbortController();
    const signal = AbortSignal.any([client, shutdown.signal]);
    // A blocking read holds its connection, so each client reads on its own.
    const connection = this.redis.duplicate();
    const close = () => connection.disconnect();
    signal.addEventListener('abort', close, { once: true });
    this.open.add(shutdown);
    try {
      await this.follow(connection, task, lastEventId, write, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      this.open.delete(shutdown);
      signal.removeEventListener('abort', close);
      connection.disconnect();
    }
  }

  /** Nest calls this on shutdown (the provider is a singleton of LiveEventsModule). */
  beforeApplicationShutdown(): void {
    for (const stream of this.open) stream.abort();
  }

  private async follow(
    connection: Redis,
    task: TaskRecord,
    lastEventId: string | undefined,
    write: SseWrite,
    signal: AbortSignal,
  ): Promise<void> {
    const shard = this.keys.shardOf(task.id);
    const stream = this.keys.events(shard);
    const ended = TERMINAL_STATUSES.includes(task.status);
    const heartbeatMs = this.config.sseHeartbeatMs;
    let cursor = lastEventId ?? `${Math.max(0, task.createdAt - CLOCK_SKEW_MS)}-0`;
    let lastBeat = Date.now();
    write(`retry: 1000\n\n`);
    while (!signal.aborted) {
      const wait = Math.max(1, heartbeatMs - (Date.now() - lastBeat));
      // An ended task is only drained (no blocking): its terminal event is already in the stream.
      const reply = (
        ended
          ? await connection.xread('COUNT', 200, 'STREAMS', stream, cursor)
          : await connection.xread('COUNT', 200, 'BLOCK', wait, 'STREAMS', stream, cursor)
      ) as StreamReply;
      const entries = reply?.[0]?.[1] ?? [];
      if (entries.length === 0 && ended) return;
      for (const [id, fields] of entries) {
        cursor = id;
        const event = parseTaskEvent(shard, id, fields);
        if (event.taskId !== task.id) continue;
        write(sseFrame(event, await this.messageFor(event, signal)));
        if (TERMINAL_EVENTS.has(event.type)) return;
      }
      // On a clock, busy or not: a comment every interval is what keeps proxies and clients sure.
      if (Date.now() - lastBeat >= heartbeatMs) {
        write(SSE_HEARTBEAT);
        lastBeat = Date.now();
      }
    }
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
