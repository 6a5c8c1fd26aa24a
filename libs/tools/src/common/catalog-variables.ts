import { registerSecretValues } from '@vigil/platform';
import { ToolCallError } from '../tool-gateway';

export type Env = Record<string, string | undefined>;

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Fills a catalog value's `${VAR}` placeholders from the environment at the moment of use (spawn,
 * connect, request). The parsed catalog keeps the templates, so nothing that logs it shows a
 * secret; every value filled in is registered with the secret scrubber (docs/missions.md,
 * "Tools from outside"). Boot checked that each variable is set; one unset since is a call error.
 */
export function fillVariables(template: string, env: Env, where: string): string {
  const used: string[] = [];
  const filled = template.replace(VARIABLE, (_match, name: string) => {
    const value = env[name];
    if (value === undefined) throw new ToolCallError(`${where}: the variable ${name} is not set`);
    used.push(value);
    return value;
  });
  if (used.length > 0) registerSecretValues(used);
  return filled;
}

export function fillRecord(record: Record<string, string>, env: Env, where: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, fillVariables(value, env, `${where}.${key}`)]),
  );
}

/** The values of the variables a catalog names, for the scrubber at boot. */
export function variableValues(names: readonly string[], env: Env): string[] {
  return names.map((name) => env[name]).filter((value): value is string => value !== undefined);
}
