import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import type { BoundKind, KindTool, PlanStep } from '@vigil/kinds';
import { CODE_VERSION } from '@vigil/platform';
import type { SliceJob } from '@vigil/queue';
import type { LoadedSlice, TaskContextStore, TaskRecord, TaskRepository } from '@vigil/tasks';
import { GEN_AI, NOOP_SPAN, VIGIL, type TraceSpan } from '@vigil/telemetry';
import { scriptedPlanOf } from '../models/scripted-plan';
import type { ActiveSlices } from './active-slices';
import { HungCallError } from './call-watchdog';
import type { HeartbeatTimer } from './heartbeat-timer';
import { deepFreeze } from './deep-freeze';
import { LoopGuard, loopCountsOf, type LoopCounts } from './loop-guard';
import type { HeldSliceContext, SliceContextCache } from './slice-context';
import type { SliceServices } from './slice-services';
import { SliceSession, type SliceData } from './slice-session';
import { SliceSteering } from './slice-steering';
import { STATEFUL_SEARCH_LIMIT, StatefulServers } from './stateful-servers';
import { progressHeartbeat } from './task-tools';

/** A claimed slice: the task as it was claimed, its context, and where that context came from. */
export type ClaimedSlice = LoadedSlice<PlanStep[]> & { task: TaskRecord; held?: HeldSliceContext };

/** What the SliceRunner hands the setup of each slice: its stores and per-Worker services. */
export interface SliceSetup {
  tasks: TaskRepository;
  contexts: TaskContextStore;
  heldContexts: SliceContextCache;
  services: SliceServices;
  active: ActiveSlices;
  logger: Logger;
}

/** The slice's span, under its attempt's (docs/observability.md, "Spans and attributes"). */
export function sliceSpan(services: SliceServices, task: TaskRecord, job: SliceJob): TraceSpan {
  const { tracing } = services;
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
        [VIGIL.workerId]: services.workerId,
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentName]: task.kind,
      },
    },
  );
}

/**
 * The task's stateful servers, their last use read from the action log and compared with the
 * sessions this Worker holds (docs/missions.md, "Stateful tool servers"); none when it has none.
 * `task` is the record as claimed: its `workerId` is the Worker of the previous slice.
 */
export async function statefulServersOf(
  setup: SliceSetup,
  task: TaskRecord,
  tools: KindTool[],
): Promise<StatefulServers | undefined> {
  const servers = new StatefulServers(tools);
  if (!servers.any) return undefined;
  await servers.readLastUse(setup.contexts.actionsNewestFirst(task.id, 25, STATEFUL_SEARCH_LIMIT));
  const notice = servers.open({
    task,
    workerId: setup.services.workerId,
    codeVersion: CODE_VERSION.label,
  });
  if (notice) setup.logger.log(`task ${task.id}: the opening says a stateful tool server restarted`);
  return servers;
}

/**
 * What the attempt's loop guard counted before this slice: held by this Worker with the context,
 * or read back from the attempt's action log (nothing to read for an attempt's first slice).
 */
export async function loopCountsAtStart(
  setup: SliceSetup,
  claimed: ClaimedSlice,
  attempt: number,
): Promise<LoopCounts> {
  if (claimed.held?.loops) return claimed.held.loops;
  const { task, context } = claimed;
  return loopCountsOf(attempt, context.recentActions, () => setup.contexts.actionsNewestFirst(task.id, 50));
}

export function openSession(
  setup: SliceSetup,
  claimed: ClaimedSlice,
  job: SliceJob,
  controller: AbortController,
  heartbeat: HeartbeatTimer,
  bound: BoundKind,
  tools: KindTool[],
  {
    loopCounts,
    ...situation
  }: Pick<SliceData, 'childrenSummary' | 'statefulServers'> & { loopCounts?: LoopCounts },
  span: TraceSpan,
): { session: SliceSession; plan: { current?: PlanStep[] }; loops: LoopGuard; steering: SliceSteering } {
  const { task, context } = claimed;
  const loops = new LoopGuard(setup.services.config, loopCounts);
  const { attempt, slice } = job;
  // A task's input never changes, so neither does its plan: computed once per task and worker,
  // on first use, and frozen, since its steps' arguments are handed to tools in every later
  // slice. Reused only with a context that was still current: that proves it is the same task
  // (an id can come back with another input after Redis lost it, via a replayed Idempotency-Key).
  const plan: { current?: PlanStep[] } = { current: claimed.held?.plan };
  const planOf = () => scriptedPlanOf(bound, task.agent, tools);
  const provider = setup.services.providers.create(task.model, {
    plan: () => (plan.current ??= deepFreeze(planOf())),
    doneSteps: context.doneSteps,
    findings: context.findings,
    outputs: context.outputs,
    options: task.agent.scripted ?? {},
    followsRestartNotice: Boolean(situation.statefulServers?.openingNotice),
    claimTrigger: (name) => setup.contexts.claimTrigger(task.id, name),
    callsMade: (tool, args) => loops.callsMade(tool, args),
  });
  const progressBeat = () =>
    setup.tasks
      .heartbeat(task.id, attempt, { loopLagMs: setup.services.loopLag.sample() }, false)
      .catch((error: unknown) =>
        setup.logger.warn(`task ${task.id}: progress beat failed: ${String(error)}`),
      );
  const steering = new SliceSteering(claimed.steering ?? [], (from) =>
    setup.contexts.steeringSince(task.id, from),
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
      steering,
    },
    ledger: steering.watching(
      setup.services.stepLedger({
        taskId: task.id,
        attempt,
        slice,
        context,
        contextVersion: task.contextVersion,
        writer: randomUUID(),
        codeVersion: CODE_VERSION.label,
      }),
    ),
    model: setup.services.paidModelCall(task, attempt, provider, span),
    hooks: {
      onStepRecorded: () => heartbeat.touch(),
      onToolProgress: progressHeartbeat(heartbeat, progressBeat),
      onHungCall: (call) => controller.abort(new HungCallError(call, 'deadline')),
      draining: () => setup.active.draining,
    },
    services: setup.services,
    loops,
  });
  return { session, plan, loops, steering };
}
