import { ConfigError, Env } from './env-parsers';

type Json = Record<string, unknown>;

/** `${VAR}`; anything else between `${` and `}` is refused as a malformed reference. */
const VARIABLE_REFERENCE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Typed field readers for the tool catalog: every error names the file, the entry and the field
 * (`VIGIL_TOOLS (/x/tools.json): mcpServers.files: "command" must be a non-empty string`), and
 * every `${VAR}` a field may hold is checked against the environment without reading its value
 * into the result (docs/missions.md, "Tools from outside").
 */
export class CatalogReader {
  readonly variables = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly env: Env,
  ) {}

  fail(entry: string, message: string): never {
    throw new ConfigError(`VIGIL_TOOLS (${this.file}): ${entry}: ${message}`);
  }

  /** An object with only the allowed fields. */
  object(value: unknown, entry: string, allowed: readonly string[]): Json {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      this.fail(entry, 'must be an object');
    for (const field of Object.keys(value)) {
      if (!allowed.includes(field))
        this.fail(entry, `unknown field "${field}" (allowed: ${allowed.join(', ')})`);
    }
    return value as Json;
  }

  /** An object whose keys are names and whose values the caller reads (`{}` when absent). */
  map(value: unknown, entry: string): Json {
    if (value === undefined) return {};
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      this.fail(entry, 'must be an object');
    return value as Json;
  }

  string(json: Json, field: string, entry: string): string {
    const value = json[field];
    if (typeof value !== 'string' || value.trim() === '')
      this.fail(entry, `"${field}" must be a non-empty string`);
    return value;
  }

  optionalString(json: Json, field: string, entry: string): string | undefined {
    return json[field] === undefined ? undefined : this.string(json, field, entry);
  }

  strings(json: Json, field: string, entry: string, { nonEmpty = false } = {}): string[] | undefined {
    const value = json[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      this.fail(entry, `"${field}" must be an array of strings`);
    if (nonEmpty && (value.length === 0 || value.some((item: string) => item.trim() === '')))
      this.fail(entry, `"${field}" must be a non-empty array of non-empty strings`);
    return value as string[];
  }

  stringRecord(json: Json, field: string, entry: string): Record<string, string> {
    const value = json[field];
    if (value === undefined) return {};
    if (
      value === null ||
      typeof value !== 'object' ||
      Array.isArray(value) ||
      Object.values(value).some((item) => typeof item !== 'string')
    )
      this.fail(entry, `"${field}" must be an object of strings`);
    return { ...(value as Record<string, string>) };
  }

  timeoutMs(json: Json, entry: string): number | undefined {
    const value = json.timeoutMs;
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 10 || value > 86_400_000)
      this.fail(entry, '"timeoutMs" must be an integer between 10 and 86400000');
    return value;
  }

  /** A JSON pointer (RFC 6901): empty, or starting with "/". */
  pointer(json: Json, field: string, entry: string): string {
    const value = json[field];
    if (typeof value !== 'string' || (value !== '' && !value.startsWith('/')))
      this.fail(entry, `"${field}" must be a JSON pointer ("" or starting with "/")`);
    return value;
  }

  /** Records and checks the `${VAR}` references of a value that is filled at use. */
  variablesIn(value: string, entry: string): void {
    for (const [, name] of value.matchAll(VARIABLE_REFERENCE)) {
      if (!VARIABLE_NAME.test(name)) this.fail(entry, `"\${${name}}" is not a valid variable reference`);
      const set = this.env[name];
      if (set === undefined || set === '') this.fail(entry, `the variable ${name} is not set`);
      this.variables.add(name);
    }
  }

  /** An http(s) URL, checked with its `${VAR}` and `{{argument}}` placeholders stood in for. */
  url(json: Json, field: string, entry: string): string {
    const value = this.string(json, field, entry);
    this.variablesIn(value, `${entry}.${field}`);
    const sample = value.replace(VARIABLE_REFERENCE, 'x').replace(/\{\{[^}]*\}\}/g, 'x');
    let parsed: URL;
    try {
      parsed = new URL(sample);
    } catch {
      this.fail(entry, `"${field}" must be an absolute http(s) URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      this.fail(entry, `"${field}" must use http or https`);
    return value;
  }
}
