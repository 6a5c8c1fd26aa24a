import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { providerOf } from '@vigil/config';
import { BoundKind, KindBinder, KindTool, PlanStep } from '@vigil/kinds';
import { CODE_VERSION } from '@vigil/platform';
import type { SliceJob } from '@vigil/queue';
import {
  IllegalTransitionError,
  LoadedSlice,
  StaleAttemptError,
  StoreFullError,
  TaskContextStore,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { GEN_AI, NOOP_SPAN, VIGIL, type TraceSpan } from '@vigil/telemetry';
import { scriptedPlanOf } from '../models/scripted-plan';
import { ActiveSlices, DrainDeadlineError } from './active-slices';
import { HungCallError } from './call-watchdog';
import { HeartbeatTimer } from './heartbeat-timer';
import { SliceContextCache } from './slice-context';
import { SliceServices } from './slice-services';
import { failAttempt, handOff, type SliceOutcome } from './slice-hand-off';
import { SliceSession, type SliceData } from './slice-session';
import { STATEFUL_SEARCH_LIMIT, StatefulServers } from './stateful-servers';
import { progressHeartbeat, resolveTaskTools } from './task-tools';
import { isFencingError } from './tool-executor';
import { childrenSection } from './child-tasks';
import { deepFreeze } from './deep-freeze';

export { WORKER_ID } from './slice-services';
export type { SliceOutcome } from './slice-hand-off';

/** A claimed slice: the task as it was claimed, its context, and where that context came from. */
type ClaimedSlice = LoadedSlice<PlanStep[]> & { task: TaskRecord };

/**
 * Runs one slice of one task at one attempt: claims it (queued → running, fenced), runs at most
 * SLICE_MAX_STEPS tool steps from the recorded context with heartbeats, and hands off: next
 * slice, verification, human input, or a failed attempt for the Watcher to judge.
 */
@Injectable()
export class SliceRunner {
  private readonly logger = new Logger(SliceRunner.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly contexts: TaskContextStore,
    private readonly heldContexts: SliceContextCache,
    private readonly kinds: KindBinder,
    private readonly active: ActiveSlices,
    private readonly services: SliceServices,
  ) {}

  /** True once this Worker is shutting down: new slice jobs go back to the queue for another. */
  get draining(): boolean {
    return this.active.draining;
  }

  async run(job: SliceJob): Promise<SliceOutcome> {
    let claimed: Awaited<ReturnType<SliceRunner['claim']>>;
    try {
      claimed = await this.claim(job);
    } catch (error) {
      // Nothing was claimed: the task is as it was, and a Watcher publishes it again when due.
      if (error instanceof StoreFullError) return this.storeFull(job, 'before its claim');
      throw error;
    }
    if (claimed === 'skipped' || claimed === 'failed_attempt') return claimed;
    const span = this.sliceSpan(claimed.task, job);
    try {
      const outcome = await this.runClaimed(claimed, job, span);
      span.set({ [VIGIL.sliceOutcome]: outcome });
      return outcome;
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** The slice's span, under its attempt's (docs/observability.md, "Spans and attributes"). */
  private sliceSpan(task: TaskRecord, job: SliceJob): TraceSpan {
    const { tracing } = this.services;
    if (!tracing.enabled) return NOOP_SPAN;
    return tracing.start(
      'vigil.slice',
      { taskId: task.id, attempt: job.attempt },
      {
        attributes: {
          [VIGIL.taskId]: task.id,
          [VIGIL.kind]: task.kind,
          [VIGIL.attempt]: job.attempt,
          [VIGIL.slice]: job.slice,
          [VIGIL.model]: task.model,
          [VIGIL.workerId]: this.services.workerId,
          [GEN_AI.operationName]: 'invoke_agent',
          [GEN_AI.agentName]: task.kind,
        },
      },
    );
  }

  private async runClaimed(claimed: ClaimedSlice, job: SliceJob, span: TraceSpan): Promise<SliceOutcome> {
    const { task } = claimed;
    let session: SliceSession | undefined;
    const controller = this.active.register(task.id, job.attempt, () => session?.inFlight ?? null);
    const heartbeat = new HeartbeatTimer(
      this.services.config.heartbeatIntervalMs,
      () =>
        this.tasks.heartbeat(
          task.id,
          job.attempt,
          { inFlight: session?.inFlight ?? null, loopLagMs: this.services.loopLag.sample() },
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
        await failAttempt(this.lifecycle, task, job.attempt, 'tool_error', tools, 'slice');
        return 'failed_attempt';
      }
      // A parent back before all its children ended (a resume after a pause, a retry): it waits again.
      if (task.children && task.children.done < task.children.total) {
        heartbeat.stop();
        return await handOff(this.lifecycle, task, job, { end: 'waiting_on_children' }, () => undefined);
      }
      // A parent resumed after its children: their results are part of its prompt.
      const childrenSummary =
        task.children && this.services.childTasks
          ? childrenSection(await this.services.childTasks.list(task.id))
          : '';
      const statefulServers = await this.statefulServersOf(task, tools);
      const created = this.createSession(
        claimed,
        job,
        controller,
        heartbeat,
        bound,
        tools,
        { childrenSummary, statefulServers },
        span,
      );
      session = created.session;
      const result = await session.run();
      heartbeat.stop();
      return await handOff(this.lifecycle, task, job, result, () => {
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
   * A slice that ended by an abort or a refused write: a hung call ends the attempt (`hung_call`), a
   * drain past its deadline hands the task on, a stop, pause or recovery means it is not ours.
   */
  private async ended(
    task: TaskRecord,
    job: SliceJob,
    signal: AbortSignal,
    error: unknown,
  ): Promise<SliceOutcome> {
    const reason: unknown = signal.aborted ? signal.reason : error;
    if (reason instanceof StoreFullError || error instanceof StoreFullError)
      return this.storeFull(job, 'after its last recorded step');
    if (!signal.aborted && !isFencingError(error)) throw error;
    try {
      if (reason instanceof HungCallError) {
        await failAttempt(this.lifecycle, task, job.attempt, 'hung_call', reason.message, 'slice');
        return 'failed_attempt';
      }
      if (reason instanceof DrainDeadlineError) {
        return await handOff(this.lifecycle, task, job, { end: 'next_slice' }, () => undefined);
      }
    } catch (refused) {
      if (refused instanceof StoreFullError) return this.storeFull(job, 'at its hand-off');
      if (!isFencingError(refused) && !(refused instanceof IllegalTransitionError)) throw refused;
    }
    this.logger.log(`task ${task.id} attempt ${job.attempt}: slice abandoned (${String(reason)})`);
    return 'aborted';
  }

  /**
   * Redis is full and refused a write (docs/operations.md, "A full Redis"): the slice ends where it
   * is, with no further tool call (a write that cannot be journalled is never made) and no failed
   * attempt (that write would be refused too). The task keeps its last recorded step; its heartbeat
   * goes stale and the Watcher continues it, with no retry counted, once writes succeed again.
   * Logged once per slice.
   */
  private storeFull(job: SliceJob, where: string): SliceOutcome {
    this.logger.warn(
      `task ${job.taskId} attempt ${job.attempt} slice ${job.slice}: store_full: Redis is full and refused a write; ` +
        `the slice ends ${where}, no further tool call, no failure counted`,
    );
    return 'store_full';
  }

  /**
   * Loads the task and its context (reusing a held one that is still current) and claims the
   * slice: queued → running for this job's attempt. A stray job (older attempt, slice already
   * claimed) is skipped; a task at TASK_MAX_SLICES fails its attempt instead.
   */
  private async claim(job: SliceJob): Promise<ClaimedSlice | 'skipped' | 'failed_attempt'> {
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
    if (task.parentId && task.sliceCount === 0 && (await this.services.childTasks?.isHeld(task)))
      return 'skipped';
    if (task.sliceCount >= this.services.config.taskMaxSlices) {
      const detail = `TASK_MAX_SLICES (${this.services.config.taskMaxSlices}) reached`;
      await failAttempt(this.lifecycle, task, job.attempt, 'limit', detail, 'claim');
      return 'failed_attempt';
    }
    try {
      await this.lifecycle.claimSlice(task, {
        attempt: job.attempt,
        workerId: this.services.workerId,
        provider: providerOf(task.model, this.services.config),
        codeVersion: CODE_VERSION.label,
      });
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof StaleAttemptError) return 'skipped';
      throw error;
    }
    this.heldContexts.starts[loaded.source]++;
    return { ...loaded, task };
  }

  /**
   * The task's stateful servers, their last use read from the action log and compared with the
   * sessions this Worker holds (docs/missions.md, "Stateful tool servers"); none when it has none.
   * `task` is the record as claimed: its `workerId` is the Worker of the previous slice.
   */
  private async statefulServersOf(task: TaskRecord, tools: KindTool[]): Promise<StatefulServers | undefined> {
    const servers = new StatefulServers(tools);
    if (!servers.any) return undefined;
    await servers.readLastUse(this.contexts.actionsNewestFirst(task.id, 25, STATEFUL_SEARCH_LIMIT));
    const notice = servers.open({
      task,
      workerId: this.services.workerId,
      codeVersion: CODE_VERSION.label,
    });
    if (notice) this.logger.log(`task ${task.id}: the opening says a stateful tool server restarted`);
    return servers;
  }

  private createSession(
    claimed: ClaimedSlice,
    job: SliceJob,
    controller: AbortController,
    heartbeat: HeartbeatTimer,
    bound: BoundKind,
    tools: KindTool[],
    situation: Pick<SliceData, 'childrenSummary' | 'statefulServers'>,
    span: TraceSpan,
  ): { session: SliceSession; plan: { current?: PlanStep[] } } {
    const { task, context } = claimed;
    const { attempt, slice } = job;
    // A task's input never changes, so neither does its plan: computed once per task and worker,
    // on first use, and frozen, since its steps' arguments are handed to tools in every later
    // slice. Reused only with a context that was still current: that proves it is the same task
    // (an id can come back with another input after Redis lost it, via a replayed Idempotency-Key).
    const plan: { current?: PlanStep[] } = { current: claimed.held?.plan };
    const planOf = () => scriptedPlanOf(bound, task.agent, tools);
    const provider = this.services.providers.create(task.model, {
      plan: () => (plan.current ??= deepFreeze(planOf())),
      doneSteps: context.doneSteps,
      findings: context.findings,
      outputs: context.outputs,
      options: task.agent.scripted ?? {},
      followsRestartNotice: Boolean(situation.statefulServers?.openingNotice),
      claimTrigger: (name) => this.contexts.claimTrigger(task.id, name),
    });
    const progressBeat = () =>
      this.tasks
        .heartbeat(task.id, attempt, { loopLagMs: this.services.loopLag.sample() }, false)
        .catch((error: unknown) =>
          this.logger.warn(`task ${task.id}: progress beat failed: ${String(error)}`),
        );
    const session = new SliceSession({
      slice: {
        task,
        kind: bound.kind,
        tools,
        kindServices: bound.services,
        attempt,
        slice,
        context,
        signal: controller.signal,
        ...situation,
        span,
      },
      ledger: this.services.stepLedger({
        taskId: task.id,
        attempt,
        slice,
        context,
        contextVersion: task.contextVersion,
        writer: randomUUID(),
        codeVersion: CODE_VERSION.label,
      }),
      model: this.services.paidModelCall(task, attempt, provider, span),
      hooks: {
        onStepRecorded: () => heartbeat.touch(),
        onToolProgress: progressHeartbeat(heartbeat, progressBeat),
        onHungCall: (call) => controller.abort(new HungCallError(call, 'deadline')),
        draining: () => this.active.draining,
      },
      services: this.services,
    });
    return { session, plan };
  }
}
