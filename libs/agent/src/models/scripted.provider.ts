import type {
  GenerateRequest,
  GenerateResult,
  ModelProvider,
  ScriptedSessionView,
  ToolCall,
} from './model-provider';
import type { PlanStep } from '@vigil/kinds';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * The deterministic offline agent: it walks the kind's plan, issuing the first step the recorded
 * log does not show as done, then claims completion. It can misbehave on purpose, as real agents
 * do, each misbehaviour firing once per task: crash, hang, claim "done" early, forget progress.
 */
export class ScriptedProvider implements ModelProvider {
  readonly modelId = 'scripted';
  readonly readsPrompt = false;
  private callCounter = 0;

  constructor(readonly name: string) {}

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const session = request.session;
    if (!session) throw new Error('the scripted provider needs a session (task plan and log)');
    if (request.signal.aborted) return waitForAbort(request.signal);

    // A step that failed earlier in this slice is tried again before anything is claimed.
    const next =
      (await this.nextStep(session)) ?? session.plan.find((step) => !session.doneSteps.has(step.key));
    if (!next)
      return this.reply('All planned steps are done.', 'finish_task', {
        summary: 'All planned steps completed.',
      });

    const position = session.plan.indexOf(next, this.forgetting ? 0 : this.cursor) + 1;
    const options = session.options;
    if (options.falseFinishAfter !== undefined && position > options.falseFinishAfter) {
      if (await this.claim(session, 'falseFinishAfter')) {
        return this.reply('Everything is built.', 'finish_task', { summary: 'The whole build is complete.' });
      }
    }
    if (options.crashAtStep === position && (await this.claim(session, 'crashAtStep'))) session.crash();
    if (options.hangAtStep === position && (await this.claim(session, 'hangAtStep'))) {
      session.wedge();
      return waitForAbort(request.signal);
    }
    return this.reply('', next.tool, next.args);
  }

  private async nextStep(session: ScriptedSessionView): Promise<PlanStep | undefined> {
    // forgetProgress: once per task, a slice ignores what the log says was done and redoes writes.
    if (
      session.options.forgetProgress &&
      session.doneSteps.size > 0 &&
      session.issuedThisSlice.size === 0 &&
      (await this.claim(session, 'forgetProgress'))
    ) {
      this.forgetting = true;
    }
    if (this.forgetting) {
      const redo = session.plan.find((step) => !session.issuedThisSlice.has(step.key));
      if (redo && session.doneSteps.has(redo.key)) return redo;
      this.forgetting = false;
    }
    // The plan is walked in order, so each search resumes where the last one stopped.
    for (; this.cursor < session.plan.length; this.cursor++) {
      const step = session.plan[this.cursor];
      if (!session.doneSteps.has(step.key) && !session.issuedThisSlice.has(step.key)) return step;
    }
    return undefined;
  }

  private cursor = 0;

  /** Misbehaviours this provider saw claimed (by itself or earlier): never asked for again. */
  private readonly claimed = new Set<string>();

  /** A trigger fires once per task; after one answer, asking Redis again on every step is waste. */
  private async claim(session: ScriptedSessionView, name: string): Promise<boolean> {
    if (this.claimed.has(name)) return false;
    this.claimed.add(name);
    return session.claimTrigger(name);
  }

  private forgetting = false;

  private reply(text: string, name: string, args: Record<string, unknown>): GenerateResult {
    const call: ToolCall = { id: `scripted_${++this.callCounter}`, name, args };
    return { text, toolCalls: [call], usage: NO_USAGE };
  }
}
