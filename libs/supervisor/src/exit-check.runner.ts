import { Injectable, Optional } from '@nestjs/common';
import { CheckUnavailableError, KindBinder } from '@vigil/kinds';
import {
  ArtifactList,
  ChildTaskRepository,
  TaskContextStore,
  type CheckResult,
  type Finding,
  type TaskRecord,
} from '@vigil/tasks';

export interface CheckRun {
  checks: CheckResult[];
  /** Checks that could not run (external API down): neither pass nor fail. */
  unavailable: { check: string; reason: string }[];
  passed: boolean;
  /** What the agent recorded as findings, for the result the user reads. */
  findings: Finding[];
}

/** Runs a task's exit criteria with its kind's deterministic checks. */
@Injectable()
export class ExitCheckRunner {
  constructor(
    private readonly kinds: KindBinder,
    private readonly contexts: TaskContextStore,
    @Optional() private readonly children?: ChildTaskRepository,
    @Optional() private readonly artifacts?: ArtifactList,
  ) {}

  async run(task: TaskRecord, signal: AbortSignal): Promise<CheckRun> {
    const bound = this.kinds.bind(task);
    const context = await this.contexts.load(task.id);
    // children_completed reads the children's own records (docs/missions.md, "Child missions").
    const children = task.children && this.children ? await this.children.list(task.id) : [];
    // artifact_exists reads the task's artifact list (docs/api.md, "Artifacts").
    const artifacts = this.artifacts ? await this.artifacts.live(task.id) : [];
    // The recorded parts are decoded when a check first reads them (contextOfStored): a check of
    // the done steps never decodes an action log as long as the task.
    const evidence = {
      taskId: task.id,
      tenantId: task.tenantId,
      input: task.input,
      get findings() {
        return context.findings;
      },
      get actions() {
        return context.actions;
      },
      get doneSteps() {
        return context.doneSteps;
      },
      get outputs() {
        return context.outputs;
      },
      children: children.map((child) => ({ id: child.id, title: child.title, status: child.status })),
      artifacts,
      signal,
      // tool_result calls the catalog's read tools from here: the Watcher may load libs/tools.
      services: bound.services,
    };
    const checks: CheckResult[] = [];
    const unavailable: CheckRun['unavailable'] = [];
    for (const criterion of task.exitCriteria) {
      const check = bound.check(criterion.check);
      if (!check) {
        checks.push({
          ...criterion,
          actual: null,
          passed: false,
          detail: `kind ${bound.kind.name} has no such check`,
        });
        continue;
      }
      try {
        checks.push(await check(criterion, evidence));
      } catch (error) {
        if (error instanceof CheckUnavailableError)
          unavailable.push({ check: criterion.check, reason: error.message });
        else throw error;
      }
    }
    // No criterion is no evidence: an empty list never passes (every task is created with one).
    const passed = checks.length > 0 && unavailable.length === 0 && checks.every((check) => check.passed);
    return { checks, unavailable, passed, findings: context.findings };
  }
}
