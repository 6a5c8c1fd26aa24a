import type { PlanStep } from '@vigil/kinds';
import type { ScriptedMisbehaviour } from '@vigil/tasks';
import type { GenerateRequest, GenerateResult, ModelProvider, ToolCall } from './model-provider';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/** What the scripted agent plays from: the kind's plan, what the record shows done, its orders. */
export interface ScriptedRun {
  /** The kind's plan for the task's input (computed on first use). */
  plan(): readonly PlanStep[];
  /** Logical steps that succeeded: the slice's context, which the runtime updates as steps land. */
  doneSteps: ReadonlySet<string>;
  options: ScriptedMisbehaviour;
  /** Claims a misbehaviour for the task, so each fires once per task; false if it already fired. */
  claimTrigger(name: string): Promise<boolean>;
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * The deterministic offline agent, a driver like the real models: it walks the kind's plan,
 * issuing the first step the record does not show as done, then claims completion. It reads no
 * prompt and costs nothing. It misbehaves on purpose when told to, as real agents do, each
 * misbehaviour once per task: crash (the whole process dies before the step), hang (the call never
 * returns until aborted), claim "done" early, forget its progress (redo writes already done).
 */
export class ScriptedProvider implements ModelProvider {
  readonly modelId = 'scripted';
  private callCounter = 0;
  /** Logical steps this provider issued in this slice (it never loops on one). */
  private readonly issued = new Set<string>();
  /** The plan is walked in order, so each search resumes where the last one stopped. */
  private cursor = 0;
  private forgetting = false;
  /** Misbehaviours this provider saw claimed (by itself or earlier): never asked for again. */
  private readonly claimed = new Set<string>();

  constructor(
    readonly name: string,
    private readonly run: ScriptedRun,
  ) {}

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    if (request.signal.aborted) return waitForAbort(request.signal);
    const plan = this.run.plan();
    // A step that failed earlier in this slice is tried again before anything is claimed.
    const next = (await this.nextStep(plan)) ?? plan.find((step) => !this.run.doneSteps.has(step.key));
    if (!next)
      return this.reply('All planned steps are done.', 'finish_task', {
        summary: 'All planned steps completed.',
      });

    const position = plan.indexOf(next, this.forgetting ? 0 : this.cursor) + 1;
    const options = this.run.options;
    if (options.falseFinishAfter !== undefined && position > options.falseFinishAfter) {
      if (await this.claim('falseFinishAfter')) {
        return this.reply('Everything is built.', 'finish_task', { summary: 'The whole build is complete.' });
      }
    }
    if (options.crashAtStep === position && (await this.claim('crashAtStep'))) {
      // As an OOM kill or a power cut would: no cleanup, no hand-off, no last write.
      process.kill(process.pid, 'SIGKILL');
    }
    if (options.hangAtStep === position && (await this.claim('hangAtStep'))) {
      return waitForAbort(request.signal);
    }
    this.issued.add(next.key);
    return this.reply('', next.tool, next.args);
  }

  private async nextStep(plan: readonly PlanStep[]): Promise<PlanStep | undefined> {
    const done = this.run.doneSteps;
    // forgetProgress: once per task, a slice ignores what the log says was done and redoes writes.
    if (
      this.run.options.forgetProgress &&
      done.size > 0 &&
      this.issued.size === 0 &&
      (await this.claim('forgetProgress'))
    ) {
      this.forgetting = true;
    }
    if (this.forgetting) {
      const redo = plan.find((step) => !this.issued.has(step.key));
      if (redo && done.has(redo.key)) return redo;
      this.forgetting = false;
    }
    for (; this.cursor < plan.length; this.cursor++) {
      const step = plan[this.cursor];
      if (!done.has(step.key) && !this.issued.has(step.key)) return step;
    }
    return undefined;
  }

  /** A trigger fires once per task; after one answer, asking Redis again on every step is waste. */
  private async claim(name: string): Promise<boolean> {
    if (this.claimed.has(name)) return false;
    this.claimed.add(name);
    return this.run.claimTrigger(name);
  }

  private reply(text: string, name: string, args: Record<string, unknown>): GenerateResult {
    const call: ToolCall = { id: `scripted_${++this.callCounter}`, name, args };
    return { text, toolCalls: [call], usage: NO_USAGE };
  }
}
