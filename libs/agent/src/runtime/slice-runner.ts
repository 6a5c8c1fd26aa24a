import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { providerOf, VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { BoundKind, KindBinder, KindTool, PlanStep } from '@vigil/kinds';
import { CODE_VERSION } from '@vigil/platform';
import type { TurnJob } from '@vigil/queue';
import {
  ChildTaskRepository,
  FailureReason,
  IllegalTransitionError,
  LoadedSlice,
  StaleAttemptError,
  SpendLedger,
  StepRecorder,
  TaskContextStore,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { scriptedPlanOf } from '../models/scripted-plan';
import { SpendMetrics } from '../models/spend-metrics';
import { ModelProviders } from '../models/model-providers';
import { ActiveSlices, DrainDeadlineError } from './active-slices';
import { CallWatchdog, HungCallError } from './call-watchdog';
import { LoopLag } from './loop-lag';
import { ModelSpend } from './model-spend';
import { GlobalSpendGate } from './global-spend.gate';
import { HeartbeatTimer } from './heartbeat-timer';
import { SliceContextCache } from './slice-context';
import { SliceResult, SliceSession, SliceEnd } from './slice-session';
import { progressHeartbeat, resolveTaskTools } from './task-tools';
import { ToolExecutor, isFencingError } from './tool-executor';
import { CHILD_TASKS, childrenSection, type ChildTaskStarter } from './child-tasks';
import { deepFreeze } from './deep-freeze';

/** This Worker process's id (also its liveness connection's name). */
export const WORKER_ID = 'WORKER_ID';

export type SliceOutcome = SliceEnd | 'skipped' | 'aborted';

/** A claimed slice: the task as it was claimed, its context, and where that context came from. */
type ClaimedSlice = LoadedSlice<PlanStep[]> & { task: TaskRecord };

/**
 * Runs one slice of one task at one attempt: claims it (queued → running, fenced), runs at most
 * SLICE_MAX_STEPS tool steps from the recorded context with heartbeats, and hands off: next
 * slice, verification, human input, or a failed turn for the Watcher to judge.
 */
@Injectable()
export class SliceRunner {
  private readonly logger = new Logger(SliceRunner.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly contexts: TaskContextStore,
    private readonly heldContexts: SliceContextCache,
    private readonly recorder: StepRecorder,
    private readonly executor: ToolExecutor,
    private readonly kinds: KindBinder,
    private readonly providers: ModelProviders,
    private readonly active: ActiveSlices,
    private readonly spend: GlobalSpendGate,
    private readonly ledger: SpendLedger,
    private readonly watchdog: CallWatchdog,
    private readonly loopLag: LoopLag,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
    @Inject(WORKER_ID) private readonly workerId: string,
    @Optional() private readonly spendMetrics?: SpendMetrics,
    @Optional() private readonly childTasks?: ChildTaskRepository,
    @Optional() @Inject(CHILD_TASKS) private readonly childStarter?: ChildTaskStarter,
  ) {}

  /** True once this Worker is shutting down: new slice jobs go back to the queue for another. */
  get draining(): boolean {
    return this.active.draining;
  }

  async run(job: TurnJob): Promise<SliceOutcome> {
    const claimed = await this.claim(job);
    if (claimed === 'skipped' || claimed === 'failed_turn') return claimed;

    const { task } = claimed;
    let session: SliceSession | undefined;
    const controller = this.active.register(task.id, job.attempt, () => session?.inFlight ?? null);
    const heartbeat = new HeartbeatTimer(
      this.config.heartbeatIntervalMs,
      () =>
        this.tasks.heartbeat(
          task.id,
          job.attempt,
          { inFlight: session?.inFlight ?? null, loopLagMs: this.loopLag.sample() },
          true,
        ),
      (error) => controller.abort(error),
      isFencingError,
    );
    heartbeat.start();
    try {
      const bound = this.kinds.bind(task);
      const tools = await resolveTaskTools(bound, controller.signal);
      if (typeof tools === 'string') {
        heartbeat.stop();
        await this.failTurn(task, job.attempt, 'tool_error', tools, 'slice');
        return 'failed_turn';
      }
      // A parent back before all its children ended (a resume after a pause, a retry): it waits again.
      if (task.children && task.children.done < task.children.total) {
        heartbeat.stop();
        return await this.handOff(task, job, { end: 'waiting_on_children' }, () => undefined);
      }
      // A parent resumed after its children: their results are part of its prompt.
      const childrenSummary =
        task.children && this.childTasks ? childrenSection(await this.childTasks.list(task.id)) : '';
      const created = this.createSession(claimed, job, controller, heartbeat, bound, tools, childrenSummary);
      session = created.session;
      const result = await session.run();
      heartbeat.stop();
      return await this.handOff(task, job, result, () => {
        const kept = created.session.heldContext();
        if (kept) this.heldContexts.put(task.id, { ...kept, plan: created.plan.current });
      });
    } catch (error) {
      heartbeat.stop();
      return await this.ended(task, job, controller.signal, error);
    } finally {
      heartbeat.stop();
      this.active.release(task.id, controller);
    }
  }

  /**
   * A slice that ended by an abort or a refused write: a hung call ends the turn (`hung_call`), a
   * drain past its deadline hands the task on, a stop, pause or recovery means it is not ours.
   */
  private async ended(
    task: TaskRecord,
    job: TurnJob,
    signal: AbortSignal,
    error: unknown,
  ): Promise<SliceOutcome> {
    const reason: unknown = signal.aborted ? signal.reason : error;
    if (!signal.aborted && !isFencingError(error)) throw error;
    try {
      if (reason instanceof HungCallError) {
        await this.failTurn(task, job.attempt, 'hung_call', reason.message, 'slice');
        return 'failed_turn';
      }
      if (reason instanceof DrainDeadlineError) {
        return await this.handOff(task, job, { end: 'next_slice' }, () => undefined);
      }
    } catch (refused) {
      if (!isFencingError(refused) && !(refused instanceof IllegalTransitionError)) throw refused;
    }
    this.logger.log(`task ${task.id} attempt ${job.attempt}: slice abandoned (${String(reason)})`);
    return 'aborted';
  }

  /**
   * Loads the task and its context (reusing a held one that is still current) and claims the
   * slice: queued → running for this job's attempt. A stray job (older attempt, slice already
   * claimed) is skipped; a task at TASK_MAX_SLICES fails its turn instead.
   */
  private async claim(job: TurnJob): Promise<ClaimedSlice | 'skipped' | 'failed_turn'> {
    const held = this.heldContexts.take(job.taskId);
    const loaded = await this.contexts.loadForSlice(job.taskId, held);
    const { task } = loaded;
    if (!task || task.attempt !== job.attempt || task.status !== 'queued') {
      // A stray job leaves a live task's held context as it was.
      if (held && loaded.source === 'held' && task && !TERMINAL_STATUSES.includes(task.status))
        this.heldContexts.put(job.taskId, held);
      return 'skipped';
    }
    // A child waiting for one of its parent's places never starts, whoever published it (a resume by hand).
    if (task.parentId && task.sliceCount === 0 && (await this.childTasks?.isHeld(task))) return 'skipped';
    if (task.sliceCount >= this.config.taskMaxSlices) {
      const detail = `TASK_MAX_SLICES (${this.config.taskMaxSlices}) reached`;
      await this.failTurn(task, job.attempt, 'limit', detail, 'claim');
      return 'failed_turn';
    }
    try {
      await this.lifecycle.claimSlice(task, {
        attempt: job.attempt,
        workerId: this.workerId,
        provider: providerOf(task.model, this.config),
        codeVersion: CODE_VERSION.label,
      });
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof StaleAttemptError) return 'skipped';
      throw error;
    }
    this.heldContexts.starts[loaded.source]++;
    return { ...loaded, task };
  }

  private createSession(
    claimed: ClaimedSlice,
    job: TurnJob,
    controller: AbortController,
    heartbeat: HeartbeatTimer,
    bound: BoundKind,
    tools: KindTool[],
    childrenSummary: string,
  ): { session: SliceSession; plan: { current?: PlanStep[] } } {
    const { task, context } = claimed;
    // A task's input never changes, so neither does its plan: computed once per task and worker,
    // on first use, and frozen, since its steps' arguments are handed to tools in every later
    // slice. Reused only with a context that was still current: that proves it is the same task
    // (an id can come back with another input after Redis lost it, via a replayed Idempotency-Key).
    const plan: { current?: PlanStep[] } = { current: claimed.held?.plan };
    const planOf = () => scriptedPlanOf(bound, task.agent, tools);
    const provider = this.providers.create(task.model, {
      plan: () => (plan.current ??= deepFreeze(planOf())),
      doneSteps: context.doneSteps,
      findings: context.findings,
      options: task.agent.scripted ?? {},
      claimTrigger: (name) => this.contexts.claimTrigger(task.id, name),
    });
    const session = new SliceSession({
      task,
      kind: bound.kind,
      tools,
      services: bound.services,
      onToolProgress: progressHeartbeat(heartbeat, () =>
        this.tasks
          .heartbeat(task.id, job.attempt, { loopLagMs: this.loopLag.sample() }, false)
          .catch((error: unknown) =>
            this.logger.warn(`task ${task.id}: progress beat failed: ${String(error)}`),
          ),
      ),
      attempt: job.attempt,
      slice: job.slice,
      context,
      contextVersion: task.contextVersion,
      writer: randomUUID(),
      onStepRecorded: () => heartbeat.touch(),
      provider,
      signal: controller.signal,
      config: this.config,
      recorder: this.recorder,
      executor: this.executor,
      money: new ModelSpend(this.ledger, this.spend, {
        id: task.id,
        attempt: job.attempt,
        budgetUsd: task.budgetUsd,
      }),
      spendMetrics: this.spendMetrics,
      watchdog: this.watchdog,
      onHungCall: (call) => controller.abort(new HungCallError(call, 'deadline')),
      draining: () => this.active.draining,
      codeVersion: CODE_VERSION.label,
      ...(this.childStarter ? { children: this.childStarter } : {}),
      childrenSummary,
    });
    return { session, plan };
  }

  private async handOff(
    task: TaskRecord,
    job: TurnJob,
    result: SliceResult,
    keepContext: () => void,
  ): Promise<SliceOutcome> {
    const { attempt, slice } = job;
    switch (result.end) {
      case 'next_slice':
        await this.lifecycle.handOffSlice(task, { attempt, slice, beforeNextSlice: keepContext });
        return 'next_slice';
      case 'verifying':
        await this.lifecycle.claimDone(task, { attempt, claim: result.claim ?? '' });
        return 'verifying';
      case 'waiting_on_human':
        await this.lifecycle.askPerson(task, {
          attempt,
          question: result.question ?? '',
          ...(result.unresolvedWrite ? { unresolvedWrite: result.unresolvedWrite } : {}),
        });
        return 'waiting_on_human';
      case 'waiting_on_children': {
        const parked = await this.lifecycle.awaitChildren(task, {
          attempt,
          slice,
          beforeNextSlice: keepContext,
        });
        return parked.status === 'queued' ? 'next_slice' : 'waiting_on_children';
      }
      case 'failed_turn':
        await this.failTurn(task, attempt, result.reason ?? 'tool_error', result.detail, 'slice');
        return 'failed_turn';
      case 'paused':
        await this.lifecycle.pauseForMoney(task, {
          attempt,
          reason: result.pauseReason ?? 'budget',
          ...(result.detail !== undefined ? { detail: result.detail } : {}),
        });
        return 'paused';
    }
  }

  /** Reports this attempt as failed; the Watcher decides whether and how to retry. */
  private async failTurn(
    task: TaskRecord,
    attempt: number,
    reason: FailureReason,
    detail: string | undefined,
    during: 'claim' | 'slice',
  ): Promise<void> {
    this.logger.warn(
      `task ${task.id} attempt ${attempt}: turn failed (${reason}${detail ? `: ${detail}` : ''})`,
    );
    await this.lifecycle.failAttempt(task, {
      attempt,
      reason,
      during,
      ...(detail !== undefined ? { detail } : {}),
    });
  }
}
