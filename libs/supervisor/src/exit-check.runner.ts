import { Injectable, Optional } from '@nestjs/common';
import {
  CheckUnavailableError,
  EVERY_CHECKED_RECORD,
  KindBinder,
  type CheckContext,
  type CheckedRecord,
  type ExitCheck,
} from '@vigil/kinds';
import {
  ArtifactList,
  ChildTaskRepository,
  ContextPartNotLoadedError,
  TaskContextStore,
  type ArtifactEntry,
  type CheckResult,
  type ContextPart,
  type Finding,
  type TaskContext,
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
    const criteria = task.exitCriteria.map((criterion) => ({
      criterion,
      check: bound.check(criterion.check),
    }));
    // Only what the task's checks declare they read (docs/kinds.md, "Exit criteria"): the findings
    // always, for the result; an action log, a done set or outputs as long as the task only when
    // a check reads them.
    const reads = new Set(criteria.flatMap(({ check }) => (check ? readsOf(check) : [])));
    const contextParts = new Set([...reads].filter((part): part is ContextPart => part !== 'artifacts'));
    const context = await this.contexts.loadParts(task.id, contextParts);
    // children_completed reads the children's own records (docs/missions.md, "Child missions").
    const children = task.children && this.children ? await this.children.list(task.id) : [];
    // artifact_exists reads the task's artifact list (docs/api.md, "Artifacts").
    const artifacts = reads.has('artifacts') && this.artifacts ? await this.artifacts.live(task.id) : [];
    const recorded: Recorded = { context, artifacts };
    const shared = {
      taskId: task.id,
      tenantId: task.tenantId,
      input: task.input,
      children: children.map((child) => ({ id: child.id, title: child.title, status: child.status })),
      signal,
      // tool_result calls the catalog's read tools from here: the Watcher may load libs/tools.
      services: bound.services,
    };
    const checks: CheckResult[] = [];
    const unavailable: CheckRun['unavailable'] = [];
    for (const { criterion, check } of criteria) {
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
        checks.push(await check(criterion, evidenceFor(check, shared, recorded)));
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

function readsOf(check: ExitCheck): readonly CheckedRecord[] {
  return check.reads ?? EVERY_CHECKED_RECORD;
}

interface Recorded {
  context: TaskContext;
  artifacts: ArtifactEntry[];
}

/**
 * What one check is shown: the task, and of the record only the parts it declares. Each part is
 * decoded when first read; a part it reads without declaring throws, so a wrong declaration fails
 * the check's own tests rather than passing on an empty log.
 */
function evidenceFor(
  check: ExitCheck,
  shared: Omit<CheckContext, 'findings' | 'actions' | 'doneSteps' | 'outputs' | 'artifacts'>,
  { context, artifacts }: Recorded,
): CheckContext {
  const reads = readsOf(check);
  const declared = <T>(part: CheckedRecord, value: () => T): T => {
    if (!reads.includes(part)) throw new ContextPartNotLoadedError(part);
    return value();
  };
  return {
    ...shared,
    get findings() {
      return context.findings;
    },
    get actions() {
      return declared('actions', () => context.actions);
    },
    get doneSteps() {
      return declared('doneSteps', () => context.doneSteps);
    },
    get outputs() {
      return declared('outputs', () => context.outputs);
    },
    get artifacts() {
      return declared('artifacts', () => artifacts);
    },
  };
}
