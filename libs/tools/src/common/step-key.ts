import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: the same arguments in any order give the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * A write's logical step (invariant 4; docs/missions.md, "Tools from outside"):
 * `<catalogName>:<first 20 hex of sha256(canonical JSON)>` of all arguments, or of the catalog's
 * `keyArguments` only (an absent one counts as absent).
 */
export function stepKeyOf(
  catalogName: string,
  args: Record<string, unknown>,
  keyArguments: readonly string[] | undefined,
): string {
  const subject = keyArguments
    ? Object.fromEntries(keyArguments.filter((name) => name in args).map((name) => [name, args[name]]))
    : args;
  const digest = createHash('sha256').update(canonicalJson(subject)).digest('hex').slice(0, 20);
  return `${catalogName}:${digest}`;
}
