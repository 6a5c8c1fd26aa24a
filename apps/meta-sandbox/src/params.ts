import { invalidParam, paramRequired } from './errors';

/** Request parameters merged from the query string and the (form or JSON) body. */
export type Params = Record<string, unknown>;

function present(params: Params, name: string): boolean {
  const value = params[name];
  return value !== undefined && value !== null && value !== '';
}

export function optionalString(params: Params, name: string): string | undefined {
  if (!present(params, name)) return undefined;
  const value = params[name];
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw invalidParam(name, 'must be a string');
  return value;
}

export function requiredString(params: Params, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined || value.trim() === '') throw paramRequired(name);
  return value;
}

export function optionalEnum(params: Params, name: string, allowed: readonly string[]): string | undefined {
  const value = optionalString(params, name);
  if (value !== undefined && !allowed.includes(value)) {
    throw invalidParam(name, `must be one of {${allowed.join(', ')}}`);
  }
  return value;
}

export function requiredEnum(params: Params, name: string, allowed: readonly string[]): string {
  if (!present(params, name)) throw paramRequired(name);
  return optionalEnum(params, name, allowed) as string;
}

/** Positive integer given as a number (JSON) or numeric string (form). */
export function optionalPositiveInt(params: Params, name: string): number | undefined {
  if (!present(params, name)) return undefined;
  const value = params[name];
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim())) throw invalidParam(name, 'must be an integer');
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n <= 0) throw invalidParam(name, 'must be greater than 0');
  return n;
}

/** Nested value: a real object/array (JSON body) or a JSON-encoded string (form body, as Meta documents). */
export function optionalJson(params: Params, name: string, shape: 'object' | 'array'): unknown {
  if (!present(params, name)) return undefined;
  let value = params[name];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw invalidParam(name, `must be a JSON-encoded ${shape}`);
    }
  }
  const ok = shape === 'array' ? Array.isArray(value) : isPlainObject(value);
  if (!ok) throw invalidParam(name, `must be a JSON-encoded ${shape}`);
  return value;
}

export function requiredJson(params: Params, name: string, shape: 'object' | 'array'): unknown {
  if (!present(params, name)) throw paramRequired(name);
  return optionalJson(params, name, shape);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Numeric Graph id, given as a string or number. */
export function asGraphId(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && /^\d+$/.test(text) ? text : undefined;
}
