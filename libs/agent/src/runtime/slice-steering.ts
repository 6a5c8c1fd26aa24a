import type { SteerInstruction } from '@vigil/tasks';
import type { StepLedger } from './step-ledger';

/** A ledger that says how many instructions the task had when its last step was recorded. */
export type CountingLedger = StepLedger & { readonly steerCount: number };

const PRECEDENCE = 'They come from the user and take precedence over the task above where the two differ.';

/**
 * The instructions a person gave the task while it ran (docs/api.md, "Steering"), as one slice
 * gives them to its model. Those given before the slice started are in its opening; one given
 * while it runs is announced once, as a user turn at the end of the conversation, at the next
 * model call after the step that saw it — so the prompt's cached prefix (system, tools, opening,
 * earlier turns) stays as it was. The slice learns of a new instruction from the count that
 * record-step.lua hands back with every step: no read of its own until there is one to read.
 */
export class SliceSteering {
  private readonly known: SteerInstruction[];
  /** Instructions already in front of the model: the opening's, then each one announced. */
  private shown: number;

  constructor(
    given: readonly SteerInstruction[],
    private readonly readFrom: (from: number) => Promise<SteerInstruction[]>,
  ) {
    this.known = [...given];
    this.shown = given.length;
  }

  /** Every instruction this slice knows of, oldest first: what a next slice continued in place opens with. */
  get given(): readonly SteerInstruction[] {
    return this.known;
  }

  /** The opening's section: every instruction given before the slice started, oldest first; '' when none. */
  opening(): string {
    if (this.shown === 0) return '';
    const lines = this.known.slice(0, this.shown).map((given, i) => `${i + 1}. ${given.text}`);
    return `Instructions the user gave while the task ran, oldest first. ${PRECEDENCE}\n${lines.join('\n')}`;
  }

  /** The ledger, reading the instructions the count of a recorded step says are new (one read per new batch). */
  watching(ledger: CountingLedger): StepLedger {
    return {
      record: async (done) => {
        const errors = await ledger.record(done);
        if (ledger.steerCount > this.known.length)
          this.known.push(...(await this.readFrom(this.known.length)));
        return errors;
      },
      heldContext: () => ledger.heldContext(),
    };
  }

  /** The turn that announces instructions the model has not seen yet (null: none); each is announced once. */
  takeNew(): string | null {
    if (this.shown >= this.known.length) return null;
    const fresh = this.known.slice(this.shown).map((given) => given.text);
    this.shown = this.known.length;
    return fresh.length === 1
      ? `New instruction from the user, given while you work: ${fresh[0]}\n${PRECEDENCE}`
      : `New instructions from the user, given while you work:\n${fresh.map((text) => `- ${text}`).join('\n')}\n${PRECEDENCE}`;
  }
}
