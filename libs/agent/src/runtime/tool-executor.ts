import { Injectable } from '@nestjs/common';
import type { KindTool, ToolContext } from '@vigil/kinds';
import { JournalEntry, StaleAttemptError, TaskNotActiveError, WriteJournal } from '@vigil/tasks';

export interface ToolOutcome {
  key: string | null;
  ok: boolean;
  result?: unknown;
  error?: string;
  /** Answered from the journal: the write had completed before and was not repeated. */
  deduplicated?: boolean;
  /** Found in the external system after an earlier attempt's outcome was unknown. */
  reconciled?: boolean;
  journal?: JournalEntry;
}

/** Errors that mean this slice lost the task: they abort the slice instead of becoming tool errors. */
export function isFencingError(error: unknown): boolean {
  return error instanceof StaleAttemptError || error instanceof TaskNotActiveError;
}

const message = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** Runs a kind's tool; writes go through the write journal so none is ever made twice. */
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
    if (tool.effect === 'read') return this.attempt(key, () => tool.execute(args, context));

    const state = await this.journal.begin(context.taskId, context.attempt, key, args);
    if (state.state === 'done') return { key, ok: true, result: state.entry.result, deduplicated: true };
    if (state.state === 'unknown' && !tool.reconcile) {
      return {
        key,
        ok: false,
        error: `outcome of an earlier ${tool.name} is unknown and it cannot be reconciled`,
      };
    }
    if (state.state === 'unknown' && tool.reconcile) {
      const found = await this.attempt(key, () => tool.reconcile!(args, context));
      if (!found.ok) return found;
      if (found.result !== null && found.result !== undefined) {
        return { ...found, reconciled: true, journal: this.done(context.attempt, found.result, true) };
      }
    }
    const outcome = await this.attempt(key, () => tool.execute(args, context));
    return outcome.ok ? { ...outcome, journal: this.done(context.attempt, outcome.result, false) } : outcome;
  }

  private done(attempt: number, result: unknown, reconciled: boolean): JournalEntry {
    return { state: 'done', attempt, at: Date.now(), result, ...(reconciled ? { reconciled } : {}) };
  }

  private async attempt(key: string, call: () => Promise<unknown>): Promise<ToolOutcome> {
    try {
      return { key, ok: true, result: await call() };
    } catch (error) {
      if (isFencingError(error)) throw error;
      return { key, ok: false, error: message(error) };
    }
  }
}
