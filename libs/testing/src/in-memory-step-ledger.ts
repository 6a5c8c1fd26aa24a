import {
  actionOf,
  keepStep,
  outputJsonOf,
  type HeldSliceContext,
  type StepDone,
  type StepLedger,
} from '@vigil/agent';
import type { ActionRecord, SliceContext } from '@vigil/tasks';

/**
 * A slice's step ledger in memory, for unit tests of the agent loop without Redis: it numbers each
 * step, counts consecutive errors and keeps the slice's context as record-step.lua and the Redis
 * ledger (RecordedStepLedger) do.
 */
export class InMemoryStepLedger implements StepLedger {
  /** The action log, in order, as it would be recorded. */
  readonly actions: ActionRecord[] = [];
  /** Each step as the session handed it over (its charge, finding or message included). */
  readonly steps: StepDone[] = [];
  private consecutiveErrors = 0;

  constructor(
    readonly context: SliceContext,
    private readonly at: { attempt: number; slice: number } = { attempt: 1, slice: 1 },
  ) {}

  async record(done: StepDone): Promise<number> {
    const action = actionOf(done, this.at.attempt, this.at.slice, 'test');
    this.actions.push(action);
    this.steps.push(done);
    this.consecutiveErrors = done.outcome.ok ? 0 : this.consecutiveErrors + 1;
    keepStep(this.context, action, this.actions.length, done, outputJsonOf(done.outcome));
    return this.consecutiveErrors;
  }

  heldContext(): HeldSliceContext | undefined {
    if (this.actions.length === 0) return undefined;
    const actions = this.actions.length;
    return {
      attempt: this.at.attempt,
      actions,
      version: actions,
      writer: 'in-memory',
      context: this.context,
    };
  }
}
