import { Injectable, Logger } from '@nestjs/common';
import { providerOf } from '@vigil/config';
import { KindBinder } from '@vigil/kinds';
import { CODE_VERSION } from '@vigil/platform';
import type { SliceJob } from '@vigil/queue';
import {
  IllegalTransitionError,
  StaleAttemptError,
  StoreFullError,
  TaskContextStore,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { VIGIL, type TraceSpan } from '@vigil/telemetry';
import { ActiveSlices } from './active-slices';
import { HeartbeatTimer } from './heartbeat-timer';
import { SliceContextCache, type HeldSliceContext } from './slice-context';
import { SliceServices } from './slice-services';
import { failAttempt, handOff, type SliceOutcome } from './slice-hand-off';
import type { SliceSession } from './slice-session';
import {
  loopCountsAtStart,
  openSession,
  sliceSpan,
  statefulServersOf,
  type ClaimedSlice,
  type SliceSetup,
} from './slice-setup';
import { resolveTaskTools } from './task-tools';
import { isFencingError } from './tool-executor';
import { childrenSection } from './child-tasks';
import {
  continuesHere,
  JobsInFlight,
  nextContinued,
  reloadContinued,
  type Continued,
} from './slice-continuation';
import { interrupted, storeFull } from './slice-interruptions';

export { WORKER_ID } from './slice-services';
export type { SliceOutcome } from './slice-hand-off';

/**
 * Runs one slice of one task at one attempt: claims it (queued → running, fenced), runs at most
 * SLICE_MAX_STEPS tool steps from the recorded context with heartbeats, and hands off: next
 * slice, verification, human input, or a failed attempt for the Watcher to judge.
 */
@Injectable()
export class SliceRunner {
  private readonly logger = new Logger(SliceRunner.name);
  private readonly setup: SliceSetup;
  private readonly jobs: JobsInFlight;

  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly contexts: TaskContextStore,
    private readonly heldContexts: SliceContextCache,
    private readonly kinds: KindBinder,
    private readonly active: ActiveSlices,
    private readonly services: SliceServices,
  ) {
    this.setup = { tasks, contexts, heldContexts, services, active, logger: this.logger };
    this.jobs = new JobsInFlight((taskId) => services.sliceQueue?.shardOf(taskId) ?? 0);
  }

  /** True once this Worker is shutting down: new slice jobs go back to the queue for another. */
  get draining(): boolean {
    return this.active.draining;
  }

  /**
   * Runs the job's slice and, while the slice ends with its steps used and continuesHere allows,
   * the task's next slices at once under the same job (docs/ARCHITECTURE.md, "Named transitions");
   * `continued` hears of each slice that did. Answers how the last slice ended.
   */
  async run(job: SliceJob, continued?: (slice: number) => void): Promise<SliceOutcome> {
    this.jobs.enter(job.taskId);
    try {
      return await this.runJob(job, continued);
    } finally {
      this.jobs.leave(job.taskId);
    }
  }

  private async runJob(job: SliceJob, continued?: (slice: number) => void): Promise<SliceOutcome> {
    let claimed: Awaited<ReturnType<SliceRunner['claim']>>;
    try {
      claimed = await this.claim(job);
    } catch (error) {
      // Nothing was claimed: the task is as it was, and a Watcher publishes it again when due.
      if (error instanceof StoreFullError) return storeFull(job, 'before its claim');
      throw error;
    }
    if (typeof claimed === 'string') return claimed;
    const release = this.services.tenantSlots?.hold(claimed.task);
    let sliceCount = claimed.task.sliceCount + 1;
    try {
      for (let current = claimed, slice = job; ;) {
        const ended = await this.runTraced(current, slice, sliceCount);
        if (typeof ended === 'string') return ended;
        continued?.(slice.slice);
        slice = { ...slice, slice: slice.slice + 1, reason: 'next_slice' };
        sliceCount++;
        if (ended.held) {
          current = nextContinued(this.setup, current, { ...ended, held: ended.held }, sliceCount);
          continue;
        }
        const next = await reloadContinued(this.setup, slice, sliceCount);
        if (next === 'skipped') return 'aborted';
        current = next;
      }
    } catch (error) {
      if (error instanceof StoreFullError) return storeFull(job, 'between two slices');
      throw error;
    } finally {
      // The renewals stop; the place itself goes back with the move that ended the task's slices.
      release?.();
    }
  }

  /** `sliceCount`: the task's count of slices with this one (what its claim or continuation left). */
  private async runTraced(
    claimed: ClaimedSlice,
    job: SliceJob,
    sliceCount: number,
  ): Promise<SliceOutcome | Continued> {
    const span = sliceSpan(this.services, claimed.task, job);
    try {
      const outcome = await this.runClaimed(claimed, job, span, sliceCount);
      span.set({ [VIGIL.sliceOutcome]: typeof outcome === 'string' ? outcome : 'continued' });
      return outcome;
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  private async runClaimed(
    claimed: ClaimedSlice,
    job: SliceJob,
    span: TraceSpan,
    sliceCount: number,
  ): Promise<SliceOutcome | Continued> {
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
      const statefulServers = await statefulServersOf(this.setup, task, tools);
      const loopCounts = await loopCountsAtStart(this.setup, claimed, job.attempt);
      const created = openSession(
        this.setup,
        claimed,
        job,
        controller,
        heartbeat,
        bound,
        tools,
        { childrenSummary, statefulServers, loopCounts },
        span,
      );
      session = created.session;
      const result = await session.run();
      heartbeat.stop();
      const heldContext = (): HeldSliceContext | undefined => {
        const kept = created.session.heldContext();
        return kept && { ...kept, plan: created.plan.current, loops: created.loops.counts() };
      };
      const keepContext = () => {
        const held = heldContext();
        if (held) this.heldContexts.put(task.id, held);
      };
      const jobsHere = this.jobs.count(task.id);
      if (result.end === 'next_slice' && (await continuesHere(this.setup, task.id, sliceCount, jobsHere))) {
        const { attempt, ...started } = this.claimFields(task, job);
        await this.lifecycle.continueSlice(task, { attempt, ...started });
        return { held: heldContext(), steering: created.steering.given, started };
      }
      return await handOff(this.lifecycle, task, job, result, keepContext);
    } catch (error) {
      heartbeat.stop();
      return await interrupted(this.lifecycle, task, job, controller.signal, error);
    } finally {
      heartbeat.stop();
      this.active.release(task.id, controller);
    }
  }

  /**
   * Loads the task and its context (reusing a held one that is still current) and claims the
   * slice: queued → running for this job's attempt. A stray job (older attempt, slice already
   * claimed) is skipped; a task at TASK_MAX_SLICES fails its attempt instead.
   */
  private async claim(
    job: SliceJob,
  ): Promise<
    ClaimedSlice | 'skipped' | 'failed_attempt' | 'kind_version_elsewhere' | 'kind_version_waits' | 'parked'
  > {
    const held = this.heldContexts.take(job.taskId);
    const loaded = await this.contexts.loadForSlice(job.taskId, held);
    const { task } = loaded;
    if (!task || task.attempt !== job.attempt || task.status !== 'queued') {
      // A stray job leaves a live task's held context as it was.
      if (held && loaded.source === 'held' && task && !TERMINAL_STATUSES.includes(task.status))
        this.heldContexts.put(job.taskId, held);
      return 'skipped';
    }
    // Only a Worker that runs the task's kind version takes the slice (docs/kinds.md, "Versions").
    const version = (await this.services.kindVersions?.check(task, job.attempt)) ?? 'runs';
    if (version !== 'runs') return version === 'elsewhere' ? 'kind_version_elsewhere' : 'kind_version_waits';
    // A child waiting for one of its parent's places never starts, whoever published it (a resume by hand).
    if (task.parentId && task.sliceCount === 0 && (await this.services.childTasks?.isHeld(task)))
      return 'skipped';
    if (task.sliceCount >= this.services.config.taskMaxSlices) {
      const detail = `TASK_MAX_SLICES (${this.services.config.taskMaxSlices}) reached`;
      await failAttempt(this.lifecycle, task, job.attempt, 'limit', detail, 'claim');
      return 'failed_attempt';
    }
    if ((await this.services.tenantSlots?.enter(task, job)) === 'park') {
      if (held && loaded.source === 'held') this.heldContexts.put(job.taskId, held);
      return 'parked';
    }
    try {
      await this.lifecycle.claimSlice(task, this.claimFields(task, job));
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof StaleAttemptError) {
        // Paused, stopped or recovered since it was read: the place just claimed is not its to keep.
        await this.services.tenantSlots?.leave(task);
        return 'skipped';
      }
      throw error;
    }
    this.heldContexts.starts[loaded.source]++;
    return { ...loaded, task };
  }

  /** What a slice's start records: its attempt, this Worker, the provider and the code running it. */
  private claimFields(task: TaskRecord, job: SliceJob) {
    return {
      attempt: job.attempt,
      workerId: this.services.workerId,
      provider: providerOf(task.model, this.services.config),
      codeVersion: CODE_VERSION.label,
    };
  }
}
