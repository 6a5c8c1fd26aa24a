/**
 * Secrets never reach a log line (docs/operations.md, "Secrets never logged"). Two layers:
 * pino's redaction paths remove the fields known to carry credentials
 * (Authorization and cookie headers), and every line any part of the process writes — pino's, Nest's
 * before the logger is attached, a library's console output, a config error — has the configured
 * secret values and the credentials of any URL replaced by `[redacted]`.
 */

export const REDACTED = '[redacted]';

/** Variables whose whole value is a secret. */
const SECRET_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'META_ACCESS_TOKEN',
  'WEBHOOK_SECRET',
  'ADMIN_PASSWORD',
  'METRICS_TOKEN',
];

/** Variables holding URLs whose user and password are secrets. */
const URL_VARIABLES = ['REDIS_URL', 'REDLOCK_URLS', 'REDIS_CLUSTER_NODES'];

/**
 * OTLP exporter headers (`key=value,…`, W3C Baggage form): a backend's API key travels there, so
 * every value is a secret (docs/observability.md, "Pointing Vigil at a collector").
 */
const OTLP_HEADER_VARIABLES = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'];

/** pino redaction paths: request and response fields that carry credentials. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
];

/** Shorter values are not scrubbed by value (they would blank ordinary words); paths still apply. */
const MIN_SECRET_LENGTH = 4;

/** `scheme://user:password@` — whatever the URL, its credentials go. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*@/gi;

/** The secret values of an environment, each in the forms a log line may carry it. */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  const add = (value: string | undefined) => {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    values.add(value);
    values.add(JSON.stringify(value).slice(1, -1));
    values.add(encodeURIComponent(value));
  };
  for (const name of SECRET_VARIABLES) add(env[name]?.trim());
  // API_KEYS is `tenant:key,…`: the keys are secret, the tenant names are not.
  for (const entry of (env.API_KEYS ?? '').split(',')) add(entry.trim().split(':')[1]);
  for (const name of OTLP_HEADER_VARIABLES)
    for (const pair of (env[name] ?? '').split(',')) {
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      if (pair.includes('=')) add(safeDecode(value));
    }
  const admin = env.ADMIN_PASSWORD?.trim();
  if (admin) add(Buffer.from(`admin:${admin}`).toString('base64'));
  for (const name of URL_VARIABLES) {
    for (const item of (env[name] ?? '').split(',')) {
      const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(item.trim());
      if (!match) continue;
      const [user, password] = match[1].split(':');
      add(password && safeDecode(password));
      add(password);
      if (password) add(user && safeDecode(user));
    }
  }
  return [...values].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export type Scrub = (text: string) => string;

/** A function that replaces every given secret value and every URL's credentials in a text. */
export function secretScrubber(values: readonly string[]): Scrub {
  const sorted = [...new Set(values)].sort((a, b) => b.length - a.length);
  const known =
    sorted.length > 0
      ? new RegExp(sorted.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
      : null;
  return (text) => {
    let out = text.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
    if (known) out = out.replace(known, REDACTED);
    return out;
  };
}

let installed: Scrub | undefined;
let baseValues: string[] = [];
/** Values registered while the process runs (the tool catalog's `${VAR}` values), all forms included. */
const registered = new Set<string>();
let current: Scrub = secretScrubber([]);

/**
 * Adds secret values learnt after boot to what every line is scrubbed of: the tool catalog's
 * `${VAR}` values, registered when the gateway is built and again whenever one is substituted.
 */
export function registerSecretValues(values: Iterable<string | undefined>): void {
  const before = registered.size;
  for (const value of values) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    registered.add(value);
    registered.add(JSON.stringify(value).slice(1, -1));
    registered.add(encodeURIComponent(value));
  }
  if (registered.size !== before) current = secretScrubber([...baseValues, ...registered]);
}

/** The scrubber of this process: configured secrets and every registered value (see above). */
export function scrubSecrets(text: string): string {
  return current(text);
}

/**
 * Scrubs everything this process writes to stdout and stderr from now on (console, Nest's own
 * logger, libraries, process.stderr.write). pino writes to the file descriptor directly, past
 * these streams: its lines are scrubbed by the `streamWrite` hook of the logger's options.
 * Returns the scrubber; installing twice keeps the first.
 */
export function installSecretScrubbing(env: Record<string, string | undefined> = process.env): Scrub {
  if (installed) return installed;
  baseValues = secretValues(env);
  current = secretScrubber([...baseValues, ...registered]);
  const scrub: Scrub = (text) => current(text);
  installed = scrub;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text =
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
      return write(text === undefined ? chunk : scrub(text), ...rest);
    }) as typeof stream.write;
  }
  return scrub;
}
