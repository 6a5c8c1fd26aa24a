import type { TaskKind } from './task-kind';

/**
 * A kind's version and the older ones it can continue (docs/kinds.md, "Versions"). A task records
 * its kind's version at creation; a Worker runs a slice of it only if one of its kinds runs that
 * version: the same, or one the kind lists in `compatibleVersions`.
 */
export type VersionedKind = Pick<TaskKind, 'name' | 'version' | 'compatibleVersions'>;

/** A kind that declares no version is at version 1. */
export const kindVersionOf = (kind: Pick<TaskKind, 'version'>): number => kind.version ?? 1;

/** Whether `kind` can run a task recorded at `version`. */
export function runsVersion(
  kind: Pick<TaskKind, 'version' | 'compatibleVersions'>,
  version: number,
): boolean {
  return version === kindVersionOf(kind) || (kind.compatibleVersions ?? []).includes(version);
}

/** Every version each kind can run, its own first: what a Worker advertises. */
export function runnableVersions(kinds: readonly VersionedKind[]): Record<string, number[]> {
  const runs: Record<string, number[]> = {};
  for (const kind of kinds) runs[kind.name] = [kindVersionOf(kind), ...(kind.compatibleVersions ?? [])];
  return runs;
}

const isVersion = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1;

/** What is wrong with a kind's `version` and `compatibleVersions`; none when they are valid. */
export function versionProblems(kind: Pick<TaskKind, 'version' | 'compatibleVersions'>): string[] {
  const problems: string[] = [];
  if (kind.version !== undefined && !isVersion(kind.version)) problems.push('version must be an integer ≥ 1');
  const compatible: unknown = kind.compatibleVersions;
  if (compatible === undefined) return problems;
  if (!Array.isArray(compatible) || !compatible.every(isVersion))
    problems.push('compatibleVersions must be an array of integers ≥ 1');
  else if (compatible.some((version: number) => version >= kindVersionOf(kind)))
    problems.push(`compatibleVersions must name older versions than ${kindVersionOf(kind)}`);
  return problems;
}
