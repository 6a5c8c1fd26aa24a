/** Small typed readers for environment variables; each error names the variable it came from. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function readInt(
  env: Env,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(`${name} must be an integer, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

/** An integer that may be absent (no default: the feature it bounds is off). */
export function readOptionalInt(
  env: Env,
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  return raw(env, name) === undefined ? undefined : readInt(env, name, 0, min, max);
}

export function readNumber(
  env: Env,
  name: string,
  fallback: number | undefined,
  min = 0,
): number | undefined {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new ConfigError(`${name} must be a number, got "${value}"`);
  if (parsed < min) throw new ConfigError(`${name} must be at least ${min}, got ${parsed}`);
  return parsed;
}

export function readString(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

export function readOptional(env: Env, name: string): string | undefined {
  return raw(env, name);
}

export function readBool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
}

export function readUrl(
  env: Env,
  name: string,
  fallback: string | undefined,
  protocols: string[],
): string | undefined {
  const value = raw(env, name) ?? fallback;
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${value}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${url.protocol}"`);
  }
  return value.replace(/\/+$/, '');
}

export function readList(env: Env, name: string, fallback: string[]): string[] {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
