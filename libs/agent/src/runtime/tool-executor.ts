import { Injectable } from '@nestjs/common';
import { ToolOutput, type KindTool, type ToolContext } from '@vigil/kinds';
import { isOutcomeUnknown, type ToolBinary } from '@vigil/tools';
import {
  JournalEntry,
  type NewArtifactEntry,
  StaleAttemptError,
  StoreFullError,
  TaskNotActiveError,
  WriteJournal,
  type UnresolvedWrite,
} from '@vigil/tasks';

import type { ModelImage } from '../models/model-provider';

export interface ToolOutcome {
  key: string | null;
  ok: boolean;
  /** What is saved as the step's output (and journalled for a write). */
  result?: unknown;
  /** What the model is shown instead of `result`, when the tool says (a catalog tool's text). */
  shown?: string;
  /** The bytes of the images and files `result` refers to: stored by the ArtifactKeeper, never recorded. */
  binaries?: readonly ToolBinary[];
  /** The artifacts kept for this step: listed with it (record-step.lua). */
  artifacts?: NewArtifactEntry[];
  /** The images the model is shown with the result (the newest VISION_MAX_IMAGES of a prompt). */
  images?: ModelImage[];
  /** `result` as JSON, when it was encoded already (OutputClaimCheck measured it): not encoded again. */
  resultJson?: string;
  error?: string;
  /** Answered from the journal: the write had completed before and was not repeated. */
  deduplicated?: boolean;
  /** The session of the stateful server that answered (docs/missions.md, "Stateful tool servers"). */
  serverSession?: string;
  /** Found in the external system after an earlier attempt's outcome was unknown. */
  reconciled?: boolean;
  journal?: JournalEntry;
  /** The write's earlier outcome is unknown and Vigil cannot find out: a person must say. */
  unresolved?: UnresolvedWrite;
}

/** Errors that mean this slice lost the task: they abort the slice instead of becoming tool errors. */
export function isFencingError(error: unknown): boolean {
  return error instanceof StaleAttemptError || error instanceof TaskNotActiveError;
}

/**
 * Errors that end the slice where they happen instead of becoming a step's tool error: the task
 * was lost (fencing), or Redis is full and nothing more can be recorded (docs/operations.md,
 * "A full Redis").
 */
export function endsTheSlice(error: unknown): boolean {
  return isFencingError(error) || error instanceof StoreFullError;
}

const message = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/**
 * Runs a kind's tool; writes go through the write journal so none is ever made twice
 * (docs/ARCHITECTURE.md, invariant 4). A write whose earlier attempt left an intent without a
 * result is looked up first when the tool can (`reconcile`), made again only when a repeat has no
 * further effect (`repeatableWrite`), and otherwise never: the outcome is `unresolved`.
 */
@Injectable()
export class ToolExecutor {
  constructor(private readonly journal: WriteJournal) {}

  async run(tool: KindTool, args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome> {
    let key: string;
    try {
      key = tool.stepKey(args, context.input);
    } catch (error) {
      return { key: null, ok: false, error: message(error) };
    }
    if (tool.effect === 'read') {
      // Inline, not through `attempt`: a read runs on most steps, and this spares a closure per call.
      try {
        return this.outcomeOf(key, await tool.execute(args, context));
      } catch (error) {
        if (endsTheSlice(error)) throw error;
        return { key, ok: false, error: message(error) };
      }
    }

    // A refused intent (fenced, or a full Redis: StoreFullError) throws before the call: a write
    // that cannot be journalled is never made.
    const state = await this.journal.begin(context.taskId, context.attempt, key, args);
    if (state.state === 'done') return { key, ok: true, result: state.entry.result, deduplicated: true };
    if (state.state === 'unknown' && tool.reconcile) {
      const found = await this.attempt(key, () => tool.reconcile!(args, context));
      if (!found.ok) return found;
      if (found.result !== null && found.result !== undefined) {
        return { ...found, reconciled: true, journal: this.done(context.attempt, found.result, true) };
      }
    } else if (state.state === 'unknown' && !tool.repeatableWrite) {
      return this.unresolved(tool, key, args, 'an earlier');
    }
    let failure: unknown;
    const outcome = await this.attempt(
      key,
      () => tool.execute(args, context),
      (error) => (failure = error),
    );
    if (outcome.ok) return { ...outcome, journal: this.done(context.attempt, outcome.result, false) };
    // The call failed after it may have taken effect (its answer was lost): settled now, while the
    // model is still in this turn, rather than left for whichever call of the step comes next.
    if (!isOutcomeUnknown(failure) || context.signal.aborted) return outcome;
    if (tool.reconcile) {
      const found = await this.attempt(key, () => tool.reconcile!(args, context));
      if (found.ok && found.result !== null && found.result !== undefined)
        return { ...found, reconciled: true, journal: this.done(context.attempt, found.result, true) };
      return outcome;
    }
    return tool.repeatableWrite ? outcome : this.unresolved(tool, key, args, 'this');
  }

  private unresolved(tool: KindTool, key: string, args: Record<string, unknown>, which: string): ToolOutcome {
    const name = tool.taskName ?? tool.name;
    return {
      key,
      ok: false,
      error: `the outcome of ${which} ${name} call is unknown, it has no lookup and may not be repeated: a person must say whether it happened`,
      unresolved: { key, tool: name, args },
    };
  }

  private done(attempt: number, result: unknown, reconciled: boolean): JournalEntry {
    return { state: 'done', attempt, at: Date.now(), result, ...(reconciled ? { reconciled } : {}) };
  }

  private outcomeOf(key: string, value: unknown): ToolOutcome {
    if (!(value instanceof ToolOutput)) return { key, ok: true, result: value };
    const outcome: ToolOutcome = { key, ok: true, result: value.saved, shown: value.shown };
    if (value.binaries?.length) outcome.binaries = value.binaries;
    if (value.session !== undefined) outcome.serverSession = value.session;
    return outcome;
  }

  private async attempt(
    key: string,
    call: () => Promise<unknown>,
    onError?: (error: unknown) => void,
  ): Promise<ToolOutcome> {
    try {
      return this.outcomeOf(key, await call());
    } catch (error) {
      if (endsTheSlice(error)) throw error;
      onError?.(error);
      return { key, ok: false, error: message(error) };
    }
  }
}
