import {
  RECENT_ACTIONS,
  readFinding,
  type ActionRecord,
  type SliceContext,
  type StepRecord,
  type StepRecorder,
} from '@vigil/tasks';
import type { ToolCall } from '../models/model-provider';
import type { HeldSliceContext } from './slice-context';
import type { ToolOutcome } from './tool-executor';

/** One tool step as it is recorded: what was called, how it went, what it cost. */
export interface StepDone {
  tool: string;
  args: Record<string, unknown>;
  outcome: ToolOutcome;
  started: number;
  /** The model call's cost, charged with the first step it produced, and its reservation released. */
  costUsd?: number;
  reservedUsd?: number;
  /** The model's call, when there was one: its result goes back into the conversation. */
  call?: ToolCall;
  extra?: Pick<StepRecord, 'finding' | 'message'>;
  /** Model calls in a row without progress, this step's included (LoopGuard): recorded on its action. */
  idleCalls?: number;
}

/** Where a slice's steps go: recorded for good, and kept in the slice's context as they land. */
export interface StepLedger {
  /** Records one step and keeps the context current; resolves to the task's consecutive errors after it. */
  record(done: StepDone): Promise<number>;
  /** The context as this slice leaves it, for the task's next slice if it runs in this process. */
  heldContext(): HeldSliceContext | undefined;
}

/** The slice a ledger records for, and the context (as of `contextVersion`) it keeps current. */
export interface LedgerSlice {
  taskId: string;
  attempt: number;
  slice: number;
  context: SliceContext;
  contextVersion: number;
  /** This slice run's id, recorded with each of its steps (see load-slice.lua). */
  writer: string;
  /** The Worker's code version, recorded with every action. */
  codeVersion: string;
}

/**
 * A step's action log entry. Built field by field, without spreads: this runs on every step
 * (docs/ARCHITECTURE.md, "Throughput: what one step costs").
 */
export function actionOf(done: StepDone, attempt: number, slice: number, codeVersion: string): ActionRecord {
  const { outcome, started } = done;
  const action = { attempt, slice, tool: done.tool, key: outcome.key, args: done.args } as ActionRecord;
  if (outcome.ok) action.result = outcome.result;
  else action.error = outcome.error;
  action.startedAt = started;
  action.durationMs = Date.now() - started;
  if (outcome.deduplicated) action.deduplicated = true;
  action.codeVersion = codeVersion;
  if (outcome.serverSession !== undefined) action.serverSession = outcome.serverSession;
  if (done.idleCalls) action.idleCalls = done.idleCalls;
  return action;
}

/** A keyed step's result as saved among the task's outputs (none for a failed or unkeyed step). */
export function outputJsonOf(outcome: ToolOutcome): string | undefined {
  return outcome.ok && outcome.key && outcome.result !== undefined
    ? (outcome.resultJson ?? JSON.stringify(outcome.result))
    : undefined;
}

/**
 * Keeps a recorded step in the slice's context as Redis now holds it (JSON round trip included),
 * so a next slice that reuses it holds the same steps, outputs and findings as one that reads it
 * from Redis. Numbered as record-step.lua numbered it, so a held context renders the same prompt
 * as one read back (load-slice.lua returns the log's last entries; the prompt shows them as JSON).
 */
export function keepStep(
  context: SliceContext,
  action: ActionRecord,
  step: number,
  done: StepDone,
  outputJson: string | undefined,
): void {
  const { outcome } = done;
  const recent = (context.recentActions ??= []);
  action.step = step;
  recent.push(action);
  if (recent.length > RECENT_ACTIONS) recent.splice(0, recent.length - RECENT_ACTIONS);
  if (outcome.ok && outcome.key) {
    context.doneSteps.add(outcome.key);
    if (outputJson !== undefined) context.outputs.set(outcome.key, JSON.parse(outputJson));
  }
  const finding = done.extra?.finding;
  if (finding !== undefined) context.findings.push(readFinding(JSON.parse(JSON.stringify(finding))));
}

/**
 * The step ledger of one slice on Redis: each step recorded through the StepRecorder
 * (record-step.lua, one round trip), and the held context's bookkeeping: which context version
 * it reflects, how long the action log is, and whether a change this slice did not make means
 * nothing is kept.
 */
export class RecordedStepLedger implements StepLedger {
  private contextVersion: number;
  /** The action log's length after this slice's last recorded step (0: none recorded). */
  private actionsRecorded = 0;
  /** Steps this slice has sent to be recorded: each one's number, so a repeated call is recorded once. */
  private stepsSent = 0;
  /** False once a step's version shows a change this slice did not make (then nothing is kept). */
  private contextCurrent = true;
  /** How many instructions the task had when the last step was recorded (docs/api.md, "Steering"). */
  steerCount = 0;

  constructor(
    private readonly recorder: Pick<StepRecorder, 'record'>,
    private readonly slice: LedgerSlice,
  ) {
    this.contextVersion = slice.contextVersion;
  }

  async record(done: StepDone): Promise<number> {
    const { taskId, attempt, slice, context } = this.slice;
    const { outcome, tool, extra = {} } = done;
    const action = actionOf(done, attempt, slice, this.slice.codeVersion);
    const outputJson = outputJsonOf(outcome);
    const recorded = await this.recorder.record({
      taskId,
      attempt,
      action,
      succeeded: outcome.ok,
      outputJson,
      journal: outcome.journal,
      currentStep: outcome.key ? `${tool} ${outcome.key}` : tool,
      spentUsd: done.costUsd ?? 0,
      releaseUsd: done.reservedUsd ?? 0,
      writer: this.slice.writer,
      writerSeq: ++this.stepsSent,
      ...(outcome.artifacts?.length ? { artifacts: outcome.artifacts } : {}),
      ...extra,
    });
    if (recorded.contextVersion === this.contextVersion + 1) this.contextVersion++;
    else this.contextCurrent = false;
    this.actionsRecorded = recorded.step;
    this.steerCount = recorded.steerCount;
    keepStep(context, action, recorded.step, done, outputJson);
    return recorded.consecutiveErrors;
  }

  heldContext(): HeldSliceContext | undefined {
    if (!this.contextCurrent || this.actionsRecorded === 0) return undefined;
    const { attempt, writer, context } = this.slice;
    return { attempt, actions: this.actionsRecorded, version: this.contextVersion, writer, context };
  }
}
