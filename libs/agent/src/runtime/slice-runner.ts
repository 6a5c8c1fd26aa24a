import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { KindRegistry, PlanStep, TaskKind } from '@vigil/kinds';
import { TurnJob, TurnQueue } from '@vigil/queue';
import {
  FailureReason,
  IllegalTransitionError,
  StaleAttemptError,
  TaskRecord,
  TaskRepository,
  TaskStatus,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import type { ScriptedSessionView } from '../models/model-provider';
import { ModelProviders } from '../models/model-providers';
import { ActiveSlices } from './active-slices';
import { HeartbeatTimer } from './heartbeat-timer';
import { SliceSession, SliceEnd } from './slice-session';
import { StepRecorder } from './step-recorder';
import { SliceContext, SliceContextCache } from './slice-context';
import { TaskContextStore } from './task-context.store';
import { ToolExecutor, isFencingError } from './tool-executor';
import { GlobalSpendGate } from './global-spend.gate';

/** This Worker process's id (also its liveness connection's name). */
export const WORKER_ID = 'WORKER_ID';

export type SliceOutcome = SliceEnd | 'skipped' | 'aborted';

const RUNNING: TaskStatus[] = ['running', 'waiting_on_tool'];

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Runs one slice of one task at one attempt: claims it (queued → running, fenced), replays the
 * recorded context into a prompt, runs at most SLICE_MAX_STEPS tool steps with heartbeats, and
 * hands off: next slice, verification, human input, or a failed turn for the Watcher to judge.
 */
@Injectable()
export class SliceRunner {
  private readonly logger = new Logger(SliceRunner.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly contexts: TaskContextStore,
    private readonly heldContexts: SliceContextCache,
    private readonly recorder: StepRecorder,
    private readonly executor: ToolExecutor,
    private readonly kinds: KindRegistry,
    private readonly turns: TurnQueue,
    private readonly providers: ModelProviders,
    private readonly active: ActiveSlices,
    private readonly spend: GlobalSpendGate,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
    @Inject(WORKER_ID) private readonly workerId: string,
  ) {}

  async run(job: TurnJob): Promise<SliceOutcome> {
    const held = this.heldContexts.take(job.taskId);
    const { task, context, source } = await this.contexts.loadForSlice(job.taskId, held);
    if (!task || task.attempt !== job.attempt || task.status !== 'queued') {
      // A stray job (older attempt, slice already claimed) leaves a live task's held context as it was.
      if (held && source === 'held' && !TERMINAL_STATUSES.includes(task!.status))
        this.heldContexts.put(job.taskId, held);
      return 'skipped';
    }
    if (task.sliceCount >= this.config.taskMaxSlices) {
      await this.failTurn(
        task,
        job.attempt,
        'limit',
        `TASK_MAX_SLICES (${this.config.taskMaxSlices}) reached`,
        ['queued'],
      );
      return 'failed_turn';
    }
    try {
      await this.tasks.transition(task, 'running', {
        attempt: job.attempt,
        from: ['queued'],
        increments: { sliceCount: 1 },
        fields: { workerId: this.workerId, lastHeartbeatAt: Date.now() },
      });
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof StaleAttemptError) return 'skipped';
      throw error;
    }
    this.heldContexts.starts[source]++;

    const controller = this.active.register(task.id, job.attempt);
    const heartbeat = new HeartbeatTimer(
      this.config.heartbeatIntervalMs,
      () => this.tasks.heartbeat(task.id, job.attempt, {}, true),
      (error) => controller.abort(error),
      isFencingError,
    );
    heartbeat.start();
    try {
      const kind = this.kinds.get(task.kind);
      // A task's input never changes, so neither does its plan: computed once per task and worker,
      // and frozen, since its steps' arguments are handed to tools in every later slice.
      // Reused only with a context that was still current: that proves it is the same task (an id
      // can come back with another input after Redis lost it, through a replayed Idempotency-Key).
      let plan = source === 'held' ? held?.plan : undefined;
      const planOf = () => (plan ??= deepFreeze(kind.plan(task.input)));
      const session = this.createSession(
        task,
        kind,
        job,
        context,
        randomUUID(),
        controller.signal,
        heartbeat,
        planOf,
      );
      const end = await session.run();
      heartbeat.stop();
      return await this.handOff(task, job, end, () => {
        const kept = session.heldContext();
        if (kept) this.heldContexts.put(task.id, { ...kept, plan });
      });
    } catch (error) {
      if (controller.signal.aborted || isFencingError(error)) {
        this.logger.log(
          `task ${task.id} attempt ${job.attempt}: slice abandoned (${String(controller.signal.reason ?? error)})`,
        );
        return 'aborted';
      }
      throw error;
    } finally {
      heartbeat.stop();
      this.active.release(task.id, controller);
    }
  }

  private createSession(
    task: TaskRecord,
    kind: TaskKind,
    job: TurnJob,
    context: SliceContext,
    writer: string,
    signal: AbortSignal,
    heartbeat: HeartbeatTimer,
    plan: () => PlanStep[],
  ): SliceSession {
    const provider = this.providers.create(task.model);
    return new SliceSession({
      task,
      kind,
      attempt: job.attempt,
      slice: job.slice,
      context,
      contextVersion: task.contextVersion,
      writer,
      onStepRecorded: () => heartbeat.touch(),
      provider,
      signal,
      config: this.config,
      recorder: this.recorder,
      executor: this.executor,
      spend: this.spend,
      scripted: (issued, done): ScriptedSessionView => ({
        taskId: task.id,
        attempt: job.attempt,
        plan: plan(),
        doneSteps: done,
        issuedThisSlice: issued,
        options: task.agent.scripted ?? {},
        claimTrigger: (name) => this.contexts.claimTrigger(task.id, name),
        wedge: () => heartbeat.stop(),
        crash: () => process.kill(process.pid, 'SIGKILL') as never,
      }),
    });
  }

  private async handOff(
    task: TaskRecord,
    job: TurnJob,
    outcome: { end: SliceEnd; detail?: string; reason?: FailureReason; claim?: string; question?: string },
    keepContext: () => void,
  ): Promise<SliceOutcome> {
    const attempt = job.attempt;
    switch (outcome.end) {
      case 'next_slice':
        await this.tasks.transition(task, 'queued', { attempt, from: RUNNING });
        // Kept before the next slice is published: this worker may pick it up at once.
        keepContext();
        await this.turns.publish({ taskId: task.id, attempt, slice: job.slice + 1, reason: 'next_slice' });
        return 'next_slice';
      case 'verifying':
        await this.tasks.transition(task, 'verifying', {
          attempt,
          from: RUNNING,
          fields: { claim: { summary: outcome.claim ?? '', attempt, at: Date.now() } },
          eventData: { claim: outcome.claim ?? '' },
        });
        return 'verifying';
      case 'waiting_on_human':
        await this.tasks.transition(task, 'waiting_on_human', {
          attempt,
          from: RUNNING,
          fields: { humanQuestion: outcome.question ?? '', humanInput: null },
          eventData: { question: outcome.question ?? '' },
        });
        return 'waiting_on_human';
      case 'failed_turn':
        await this.failTurn(task, attempt, outcome.reason ?? 'tool_error', outcome.detail, RUNNING);
        return 'failed_turn';
    }
  }

  /** Reports this attempt as failed; the Watcher decides whether and how to retry. */
  private async failTurn(
    task: TaskRecord,
    attempt: number,
    reason: FailureReason,
    detail: string | undefined,
    from: TaskStatus[],
  ): Promise<void> {
    this.logger.warn(
      `task ${task.id} attempt ${attempt}: turn failed (${reason}${detail ? `: ${detail}` : ''})`,
    );
    await this.tasks.transition(task, 'retrying', {
      attempt,
      from,
      failedAttempt: { model: task.model, reason, ...(detail ? { detail } : {}) },
      deadlineMs: Date.now(),
      eventData: { turnFailed: reason, detail },
    });
  }
}
