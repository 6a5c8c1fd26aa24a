import { createHash } from 'node:crypto';
import type { ActionRecord, SliceContext } from '@vigil/tasks';
import { canonicalJson } from '@vigil/tools';
import type { LoopCounts } from './loop-counts';
import type { SessionLoopGuard, SliceResult } from './slice-session.types';
import type { StepDone } from './step-ledger';

/** LOOP_REPEAT_LIMIT and LOOP_IDLE_CALLS (docs/operations.md, "Configuration"). */
export interface LoopLimits {
  loopRepeatLimit: number;
  loopIdleCalls: number;
}

export type { LoopCounts } from './loop-counts';

/** The model's name of a failed model call or a reply without a tool call: a step, not a call. */
const NO_CALL = '(model)';
/** Actions read back from the log to count an attempt's calls again, at most. */
const COUNTED_ACTIONS = 500;
/** Arguments quoted in a loop's description, at most. */
const SHOWN_ARGS_CHARS = 200;

/** Canonical arguments up to this long are their own key; longer ones are kept as a digest. */
const KEYED_ARGS_CHARS = 64;

/**
 * The identity of a call: its tool and its arguments as canonical JSON (keys sorted at every
 * depth), so the same arguments in another order are the same call, and different arguments are
 * another call whatever the tool answers. Short arguments are the key as they are (a digest per
 * step costs more than the text it replaces); longer ones a digest, marked by `#`, which no JSON
 * text starts with.
 */
export function callKey(tool: string, args: Record<string, unknown>): string {
  const json = canonicalJson(args);
  if (json.length <= KEYED_ARGS_CHARS) return `${tool} ${json}`;
  return `${tool} #${createHash('sha256').update(json).digest('base64url').slice(0, 22)}`;
}

function looping(detail: string): SliceResult {
  return { end: 'failed_attempt', reason: 'looping', detail };
}

function shownArgs(args: Record<string, unknown>): string {
  const text = canonicalJson(args);
  return text.length > SHOWN_ARGS_CHARS ? `${text.slice(0, SHOWN_ARGS_CHARS - 1)}…` : text;
}

/**
 * Catches an agent that loops (docs/ARCHITECTURE.md, "Stalls, diagnosed"): the same call (tool and
 * canonical arguments) LOOP_REPEAT_LIMIT times in one attempt, or LOOP_IDLE_CALLS model calls in a
 * row that complete no new unit and record no finding, end the attempt as `looping`. The model is
 * warned once before either limit, with the result of a call. The counts cover the whole attempt:
 * a slice starts from those its Worker held, or from the attempt's action log (`loopCountsOf`).
 */
export class LoopGuard implements SessionLoopGuard {
  private readonly calls: Map<string, number>;
  private idle: number;
  /** The idle calls reached one short of the limit: the next call's result carries the warning. */
  private idleWarningDue = false;

  /**
   * `counts` are taken over, not copied: they come from the attempt's action log or from the
   * context the Worker held, which one slice takes (and only one); copied here and again in
   * `counts()`, a long task's map would be copied twice a slice.
   */
  constructor(
    private readonly limits: LoopLimits,
    counts?: LoopCounts,
  ) {
    this.calls = counts?.calls ?? new Map();
    this.idle = counts?.idleCalls ?? 0;
  }

  /** How many times this attempt made the call so far. */
  callsMade(tool: string, args: Record<string, unknown>): number {
    return this.calls.get(callKey(tool, args)) ?? 0;
  }

  /** Before each model call: the attempt ends once LOOP_IDLE_CALLS calls in a row made no progress. */
  beforeModelCall(): SliceResult | undefined {
    const limit = this.limits.loopIdleCalls;
    if (this.idle >= limit)
      return looping(
        `${this.idle} model calls in a row completed no new step and recorded no finding (LOOP_IDLE_CALLS ${limit})`,
      );
    this.idle++;
    if (this.idle === limit - 1) this.idleWarningDue = true;
    return undefined;
  }

  /**
   * A step about to be recorded, with the context as it was before it: counted, its idle count
   * noted on it (`idleCalls`, which a later slice counts on from), and what follows: a warning for
   * the model with its result, or the end of the attempt once the step is recorded.
   */
  observe(done: StepDone, context: SliceContext): { warning?: string; end?: SliceResult } {
    const { outcome } = done;
    const newUnit = outcome.ok && outcome.key !== null && !context.doneSteps.has(outcome.key);
    if (newUnit || done.extra?.finding !== undefined) {
      this.idle = 0;
      this.idleWarningDue = false;
    }
    if (this.idle > 0) done.idleCalls = this.idle;
    if (done.tool === NO_CALL) return {};
    const key = callKey(done.tool, done.args);
    const count = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, count);
    const limit = this.limits.loopRepeatLimit;
    if (count >= limit)
      return {
        end: looping(
          `${done.tool} was called ${count} times with the same arguments ${shownArgs(done.args)} (LOOP_REPEAT_LIMIT ${limit})`,
        ),
      };
    if (count === limit - 1 && count > 1)
      return {
        warning:
          `Vigil: you have called ${done.tool} with these same arguments ${count} times in this attempt; ` +
          `its answer will not change. Calling it once more ends the attempt as looping. Do something else.`,
      };
    if (this.idleWarningDue && done.call) {
      this.idleWarningDue = false;
      return {
        warning:
          `Vigil: your last ${this.idle} model calls completed no new step and recorded no finding; ` +
          `one more without progress ends the attempt as looping. Complete a step, record a finding, or finish.`,
      };
    }
    return {};
  }

  /**
   * The counts as this slice leaves them, for the attempt's next slice if it runs in this process:
   * handed on, not copied (see the constructor), once the slice has ended.
   */
  counts(): LoopCounts {
    return { calls: this.calls, idleCalls: this.idle };
  }
}

/** A result as the model reads it, with the guard's warning after it. */
export function withLoopWarning(payload: unknown, warning: string | undefined): unknown {
  if (warning === undefined) return payload;
  return typeof payload === 'string' ? `${payload}\n\n${warning}` : { result: payload, warning };
}

/**
 * The counts of `attempt` as its action log holds them, read newest first down to the attempt's
 * first action (at most COUNTED_ACTIONS): each call counted again, the idle calls from the newest
 * action. Read only when no Worker holds them and the attempt has steps already (`recent`, the
 * log's last entries as the slice loaded them, says whether it has).
 */
export async function loopCountsOf(
  attempt: number,
  recent: readonly ActionRecord[] | undefined,
  newestFirst: () => AsyncIterable<ActionRecord>,
): Promise<LoopCounts> {
  const counts: LoopCounts = { calls: new Map(), idleCalls: 0 };
  if (recent?.at(-1)?.attempt !== attempt) return counts;
  let read = 0;
  for await (const action of newestFirst()) {
    if (action.attempt !== attempt || read++ >= COUNTED_ACTIONS) break;
    if (read === 1) counts.idleCalls = action.idleCalls ?? 0;
    if (action.tool === NO_CALL) continue;
    const key = callKey(action.tool, action.args);
    counts.calls.set(key, (counts.calls.get(key) ?? 0) + 1);
  }
  return counts;
}
