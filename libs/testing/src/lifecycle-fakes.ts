import type { Redis } from 'ioredis';
import type { VigilConfig } from '@vigil/config';
import type { RedisKeys } from '@vigil/redis';
import {
  redisTaskLifecycle,
  TaskLifecycle,
  type ControlSignal,
  type SliceJob,
  type SliceContinuations,
  type SlicePublisher,
  type TaskRecord,
  type TransitionCommand,
  type TransitionResult,
  type TransitionStore,
  type ForgetResult,
  type ForgetTarget,
  type TransitionTarget,
  type WatcherWakeups,
} from '@vigil/tasks';

/** What a test Worker claims a slice as. */
export const TEST_CLAIM = { workerId: 'test-worker', provider: 'scripted', codeVersion: 'test' } as const;

/** The slice queue, recording what the lifecycle published. */
export class RecordingSlices implements SlicePublisher {
  readonly published: SliceJob[] = [];
  readonly republished: SliceJob[] = [];

  async publish(job: SliceJob): Promise<string> {
    this.published.push(job);
    return `${job.taskId}-a${job.attempt}-s${job.slice}`;
  }

  async republish(job: SliceJob): Promise<string> {
    this.republished.push(job);
    return `${job.taskId}-a${job.attempt}-s${job.slice}`;
  }
}

/** The Watcher's wake queue, recording each wake-up. */
export class RecordingWakeups implements WatcherWakeups {
  readonly woken: Parameters<WatcherWakeups['publish']>[0][] = [];

  async publish(job: Parameters<WatcherWakeups['publish']>[0]): Promise<void> {
    this.woken.push(job);
  }
}

/** Control signals, recorded instead of published. */
export class RecordingSignals {
  readonly sent: ControlSignal[] = [];

  async publish(signal: ControlSignal): Promise<void> {
    this.sent.push(signal);
  }
}

/**
 * The transition script's stand-in for unit tests: records every command and answers what the
 * test queued with `replyNext` (an error is thrown), else the move applied at the writer's attempt.
 */
export class RecordingTransitionStore implements TransitionStore {
  readonly applied: { target: TransitionTarget; command: TransitionCommand }[] = [];
  private readonly replies: (Partial<TransitionResult> | Error)[] = [];

  replyNext(reply: Partial<TransitionResult> | Error): this {
    this.replies.push(reply);
    return this;
  }

  async apply(target: TransitionTarget, command: TransitionCommand): Promise<TransitionResult> {
    this.applied.push({ target, command });
    const reply = this.replies.shift() ?? {};
    if (reply instanceof Error) throw reply;
    return { status: command.to, attempt: command.attempt ?? 1, due: [], ...reply };
  }

  readonly forgotten: ForgetTarget[] = [];

  async forget(target: ForgetTarget): Promise<ForgetResult> {
    this.forgotten.push(target);
    return 'removed';
  }

  /** The one command applied so far (fails the test if there were more or none). */
  only(): TransitionCommand {
    if (this.applied.length !== 1) throw new Error(`expected one transition, got ${this.applied.length}`);
    return this.applied[0].command;
  }
}

/** Records each slice continued in place (the step recorder's continue_slice entry). */
export class RecordingContinuations implements SliceContinuations {
  readonly continued: {
    taskId: string;
    move: Parameters<SliceContinuations['continueSlice']>[1];
    now?: number;
  }[] = [];

  async continueSlice(
    taskId: string,
    move: Parameters<SliceContinuations['continueSlice']>[1],
    now?: number,
  ): Promise<number> {
    this.continued.push({ taskId, move, now });
    return this.continued.length + 1;
  }
}

/** A TaskLifecycle without Redis: every port records, children come from `children`. */
export function inMemoryLifecycle(children: Record<string, TaskRecord[]> = {}) {
  const store = new RecordingTransitionStore();
  const slices = new RecordingSlices();
  const wakeups = new RecordingWakeups();
  const signals = new RecordingSignals();
  const continuations = new RecordingContinuations();
  const lifecycle = new TaskLifecycle(
    store,
    slices,
    wakeups,
    signals,
    { list: async (parentId: string) => children[parentId] ?? [] },
    undefined,
    undefined,
    continuations,
  );
  return { lifecycle, store, slices, wakeups, signals, continuations };
}

/** A TaskLifecycle on a test's Redis (the real transition script), its queues recording. */
export function redisLifecycle(ctx: { redis: Redis; keys: RedisKeys; config: VigilConfig }) {
  const slices = new RecordingSlices();
  const wakeups = new RecordingWakeups();
  const lifecycle = redisTaskLifecycle(ctx.redis, ctx.keys, ctx.config, { slices, wakeups });
  return { lifecycle, slices, wakeups };
}
