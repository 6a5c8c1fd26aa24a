import type { PlanStep } from '@vigil/kinds';
import type { Finding, ScriptedMisbehaviour } from '@vigil/tasks';
import { reopenCalls } from '../runtime/stateful-servers';
import { withArtifactIds } from './scripted-artifacts';
import type { GenerateRequest, GenerateResult, ModelProvider, ToolCall } from './model-provider';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/** Built-ins a plan may name that leave no logical step behind: each is played once per task. */
const ONCE_PER_TASK = new Set(['message_user', 'request_human_input', 'read_output']);

/** What the scripted agent plays from: the kind's plan, what the record shows done, its orders. */
export interface ScriptedRun {
  /** The kind's plan for the task's input (computed on first use). */
  plan(): readonly PlanStep[];
  /** Logical steps that succeeded: the slice's context, which the runtime updates as steps land. */
  doneSteps: ReadonlySet<string>;
  /** Saved outputs by step key (the slice's context): where a plan's `"$artifacts:N"` is read. */
  outputs?: ReadonlyMap<string, unknown>;
  /** Findings recorded so far (the slice's context): a plan's `record_finding` is done once recorded. */
  findings?: readonly Finding[];
  options: ScriptedMisbehaviour;
  /**
   * The slice's opening tells of a restarted stateful tool server: the driver reads it and makes
   * the calls it names to reopen where the server was (`Reopen with:` lines) before its plan, as a
   * model following the notice would. Without it the driver reads no prompt at all.
   */
  followsRestartNotice?: boolean;
  /** Claims a misbehaviour for the task, so each fires once per task; false if it already fired. */
  claimTrigger(name: string): Promise<boolean>;
  /** How many times the attempt made this call so far (the loop guard's count): when a plan's repeat is done. */
  callsMade?(tool: string, args: Record<string, unknown>): number;
}

/**
 * How far each plan is known done from its start, kept with the plan (a worker reuses a task's
 * plan only with a context that is still current, whose done steps only grow): a slice starts its
 * walk there instead of passing every done step again, which made the walk quadratic in the
 * task's length. Checked, not trusted: the record must still hold as many done steps, the one
 * just before the mark among them.
 */
const donePrefix = new WeakMap<readonly PlanStep[], number>();

function doneUpTo(plan: readonly PlanStep[], done: ReadonlySet<string>): number {
  let index = donePrefix.get(plan) ?? 0;
  if (index > done.size || (index > 0 && !done.has(plan[index - 1].key))) index = 0;
  while (index < plan.length && done.has(plan[index].key)) index++;
  donePrefix.set(plan, index);
  return index;
}

/** What the scripted agent says it does in a turn: one short sentence, like a model's preamble. */
function sentenceFor(turn: readonly PlanStep[]): string {
  return `Next: ${turn.map((step) => `${step.tool} (${step.key})`).join(', ')}.`;
}

/**
 * The sentence in three pieces (cut after its first two spaces), as a model streams its text
 * (docs/api.md, "Live model output"). Runs on every scripted step: no regex, no arrays.
 */
function streamText(text: string, onText: (text: string) => void): void {
  let from = 0;
  for (let piece = 0; piece < 2; piece++) {
    const space = text.indexOf(' ', from);
    if (space < 0 || space + 1 >= text.length) break;
    onText(text.slice(from, space + 1));
    from = space + 1;
  }
  onText(text.slice(from));
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
 * issuing the first step the record does not show as done (with the rest of its model turn when
 * the plan groups calls into turns), then claims completion. It reads no prompt and costs
 * nothing. It misbehaves on purpose when told to, as real agents do, each misbehaviour once per
 * task: crash (the whole process dies before the step), hang (the call never returns until
 * aborted), claim "done" early, forget its progress (redo writes already done). Positions count
 * the plan's tool calls from 1, so `crashAtStep: n` dies just before the task's n-th call.
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
    const reopen = this.reopenFirst(request);
    if (reopen.length) return this.reply(request, 'Reopening where the restarted server was.', reopen);
    const plan = this.run.plan();
    // A step that failed earlier in this slice is tried again before anything is claimed.
    const next = (await this.nextStep(plan)) ?? this.firstUndone(plan);
    if (!next)
      return this.reply(request, 'All planned steps are done.', [
        { name: 'finish_task', args: { summary: 'All planned steps completed.' } },
      ]);

    const index = plan.indexOf(next, this.forgetting ? 0 : this.cursor);
    const position = index + 1;
    const options = this.run.options;
    if (options.falseFinishAfter !== undefined && position > options.falseFinishAfter) {
      if (await this.claim('falseFinishAfter')) {
        return this.reply(request, 'Everything is built.', [
          { name: 'finish_task', args: { summary: 'The whole build is complete.' } },
        ]);
      }
    }
    if (options.crashAtStep === position && (await this.claim('crashAtStep'))) {
      // As an OOM kill or a power cut would: no cleanup, no hand-off, no last write.
      process.kill(process.pid, 'SIGKILL');
    }
    if (options.hangAtStep === position && (await this.claim('hangAtStep'))) {
      return waitForAbort(request.signal);
    }
    const args = (step: PlanStep) => withArtifactIds(step.args, plan, this.run.outputs);
    if (next.turn === undefined) {
      this.issued.add(next.key);
      return this.reply(request, sentenceFor([next]), [{ name: next.tool, args: args(next) }]);
    }
    const turn = [next, ...this.restOfTurn(plan, index >= 0 ? index : plan.indexOf(next))];
    for (const step of turn) this.issued.add(step.key);
    return this.reply(
      request,
      sentenceFor(turn),
      turn.map((step) => ({ name: step.tool, args: args(step) })),
    );
  }

  /** On a slice's first call, the reopening calls its opening names (see `followsRestartNotice`). */
  private reopenFirst(request: GenerateRequest): { name: string; args: Record<string, unknown> }[] {
    if (!this.run.followsRestartNotice || this.callCounter > 0) return [];
    const opening = request.messages[0];
    if (opening?.role !== 'user') return [];
    const offered = new Set(request.tools.map((tool) => tool.name));
    return reopenCalls(opening.content).filter((call) => offered.has(call.name));
  }

  /**
   * The other calls of the step's model turn, in order, up to a misbehaviour's position: a crash
   * or hang ordered for the n-th call happens in its own model call, just before that call.
   */
  private restOfTurn(plan: readonly PlanStep[], index: number): PlanStep[] {
    const turn = plan[index].turn;
    if (turn === undefined) return [];
    const { crashAtStep, hangAtStep } = this.run.options;
    const rest: PlanStep[] = [];
    for (let i = index + 1; i < plan.length && plan[i].turn === turn; i++) {
      if (i + 1 === crashAtStep || i + 1 === hangAtStep) break;
      if (!this.isDone(plan[i]) && !this.issued.has(plan[i].key)) rest.push(plan[i]);
    }
    return rest;
  }

  /** Done as the record shows it: the logical step is done, or the plan's finding was recorded. */
  private isDone(step: PlanStep): boolean {
    if (step.repeat !== undefined)
      return (this.run.callsMade?.(step.tool, step.args) ?? Infinity) >= step.repeat;
    if (this.run.doneSteps.has(step.key)) return true;
    if (step.tool !== 'record_finding') return false;
    return (this.run.findings ?? []).some(
      (finding) => finding.title === step.args.title && finding.body === step.args.body,
    );
  }

  /** A built-in with no logical step (a message, a question, a read) plays once per task. */
  private async playedBefore(step: PlanStep): Promise<boolean> {
    return !(await this.run.claimTrigger(`plan:${step.key}`));
  }

  private firstUndone(plan: readonly PlanStep[]): PlanStep | undefined {
    for (const step of plan) {
      if (this.isDone(step)) continue;
      if (ONCE_PER_TASK.has(step.tool)) continue;
      return step;
    }
    return undefined;
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
    if (this.cursor === 0) this.cursor = doneUpTo(plan, done);
    for (; this.cursor < plan.length; this.cursor++) {
      const step = plan[this.cursor];
      // The done-set check first, inline: the cheapest way past a done step.
      if (done.has(step.key) || this.isDone(step) || this.issued.has(step.key)) continue;
      if (ONCE_PER_TASK.has(step.tool) && (await this.playedBefore(step))) {
        this.issued.add(step.key);
        continue;
      }
      return step;
    }
    return undefined;
  }

  /** A trigger fires once per task; after one answer, asking Redis again on every step is waste. */
  private async claim(name: string): Promise<boolean> {
    if (this.claimed.has(name)) return false;
    this.claimed.add(name);
    return this.run.claimTrigger(name);
  }

  private reply(
    request: GenerateRequest,
    text: string,
    calls: { name: string; args: Record<string, unknown> }[],
  ): GenerateResult {
    if (request.onText) streamText(text, request.onText);
    const toolCalls: ToolCall[] = calls.map((call) => ({
      id: `scripted_${++this.callCounter}`,
      name: call.name,
      args: call.args,
    }));
    return { text, toolCalls, usage: NO_USAGE };
  }
}
