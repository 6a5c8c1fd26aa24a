import { loadConfig } from '@vigil/config';
import type { CheckResult } from '@vigil/tasks';
import {
  kindServices,
  type CheckContext,
  type KindServices,
  type PlanStep,
  type TaskKind,
  type ToolContext,
} from '@vigil/kinds';
import { FakeToolGateway } from './fake-tool-gateway';

/** Drives a kind the way the runtime does (step keys, saved outputs), for tests and local experiments. */
export class KindHarness<Input> {
  readonly outputs = new Map<string, unknown>();
  readonly services: KindServices;

  constructor(
    readonly kind: TaskKind<Input>,
    readonly input: Input,
    meta: { baseUrl: string; accessToken?: string },
  ) {
    const env: Record<string, string> = { META_API_BASE_URL: meta.baseUrl };
    if (meta.accessToken) env.META_ACCESS_TOKEN = meta.accessToken;
    this.services = kindServices(loadConfig(env), new FakeToolGateway([]));
  }

  toolContext(signal = new AbortController().signal): ToolContext<Input> {
    return {
      taskId: 'tsk_test',
      attempt: 1,
      input: this.input,
      outputs: this.outputs,
      signal,
      services: this.services,
    };
  }

  tool(name: string) {
    const tool = this.kind.tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool;
  }

  /** Runs one step and saves its output under its step key, as the runtime does. */
  async run(step: Pick<PlanStep, 'tool' | 'args'>): Promise<unknown> {
    const tool = this.tool(step.tool);
    const key = tool.stepKey(step.args, this.input);
    const result = await tool.execute(step.args, this.toolContext());
    this.outputs.set(key, result);
    return result;
  }

  async runPlan(filter: (step: PlanStep) => boolean = () => true): Promise<void> {
    for (const step of (this.kind.scriptedPlan?.(this.input) ?? []).filter(filter)) await this.run(step);
  }

  reconcile(step: Pick<PlanStep, 'tool' | 'args'>): Promise<unknown> {
    const tool = this.tool(step.tool);
    if (!tool.reconcile) throw new Error(`${step.tool} has no reconcile`);
    return tool.reconcile(step.args, this.toolContext());
  }

  /** Runs the default exit criteria with an empty action log (checks must not need it). */
  async check(name?: string): Promise<CheckResult[]> {
    const context: CheckContext<Input> = {
      taskId: 'tsk_test',
      tenantId: 'acme',
      input: this.input,
      findings: [],
      actions: [],
      doneSteps: new Set(),
      outputs: new Map(),
      signal: new AbortController().signal,
      services: this.services,
    };
    const criteria = this.kind.defaultExitCriteria(this.input).filter((c) => !name || c.check === name);
    const results: CheckResult[] = [];
    for (const criterion of criteria)
      results.push(await this.kind.checks[criterion.check](criterion, context));
    return results;
  }
}
