import type { PlanStep } from '@vigil/kinds';

/** In a scripted plan's arguments, an array item `"$artifacts:N"` stands for the artifacts of call N. */
const ARTIFACTS_OF_CALL = /^\$artifacts:(\d+)$/;
const ARTIFACT_ID = /^[0-9a-f]{64}$/;

/**
 * A scripted plan cannot know the id of a screenshot it has not taken yet: an array item
 * `"$artifacts:N"` in a call's arguments is replaced, when the call is issued, by the ids of the
 * artifacts in the saved output of the plan's N-th call (counted from 1, as `crashAtStep` counts),
 * in the order they appear; none when that call saved none. Everything else is passed as planned.
 */
export function withArtifactIds(
  args: Record<string, unknown>,
  plan: readonly PlanStep[],
  outputs: ReadonlyMap<string, unknown> | undefined,
): Record<string, unknown> {
  if (!outputs || !JSON.stringify(args).includes('$artifacts:')) return args;
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value))
      return value.flatMap((item) => {
        const match = typeof item === 'string' ? ARTIFACTS_OF_CALL.exec(item) : null;
        if (!match) return [resolve(item)];
        const step = plan[Number(match[1]) - 1];
        return step ? artifactIdsIn(outputs.get(step.key)) : [];
      });
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  return resolve(args) as Record<string, unknown>;
}

/** The ids of every `{artifact: {id}}` part in a saved output, once each, in order. */
export function artifactIdsIn(output: unknown): string[] {
  const ids = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const ref = (value as { artifact?: { id?: unknown } }).artifact;
    if (ref && typeof ref.id === 'string' && ARTIFACT_ID.test(ref.id)) ids.add(ref.id);
    Object.values(value).forEach(walk);
  };
  walk(output);
  return [...ids];
}
