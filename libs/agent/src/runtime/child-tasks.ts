import type { ChildPlacement, TaskRecord } from '@vigil/tasks';

/**
 * Starts a child mission for a parent's `start_subtask` call (docs/missions.md, "Child
 * missions"). The Worker does not own task creation: the app wires in the same creation `POST
 * /v1/tasks` uses (libs/control's StartChildTaskUseCase), behind this token. A refusal throws; its
 * message is the call's tool error.
 */
export const CHILD_TASKS = Symbol('CHILD_TASKS');

export interface ChildTaskStarter {
  execute(
    parent: TaskRecord,
    request: SubtaskArgs,
    stepKey: string,
  ): Promise<{ childId: string; placement: ChildPlacement }>;
}

/** `start_subtask {title?, goal, tools?, exitCriteria, agent?, evidence?, context?}` as checked by parseBuiltin. */
export interface SubtaskArgs {
  title?: string;
  goal: string;
  tools?: string[];
  exitCriteria: unknown[];
  agent?: unknown;
  evidence?: unknown;
  context?: unknown;
}

const RESULT_TITLES = 10;

/**
 * What the parent is told of its children when it resumes: each child's status, verification and
 * the titles of its findings, from their records.
 */
export function childrenSection(children: readonly TaskRecord[]): string {
  if (children.length === 0) return '';
  const lines = children.map((child) => {
    const verification = child.verification
      ? child.verification.passed
        ? 'verified'
        : `verification failed (${child.verification.checks
            .filter((check) => !check.passed)
            .map((check) => check.check)
            .join(', ')})`
      : 'not verified';
    const findings = ((child.result as { findings?: { title?: string }[] } | null)?.findings ?? [])
      .slice(0, RESULT_TITLES)
      .map((finding) => finding.title ?? '')
      .filter(Boolean);
    return `- ${child.id} "${child.title}": ${child.status}, ${verification}${findings.length ? `; findings: ${findings.join('; ')}` : ''}`;
  });
  return `Your child tasks (${children.length}), started with start_subtask:\n${lines.join('\n')}`;
}
