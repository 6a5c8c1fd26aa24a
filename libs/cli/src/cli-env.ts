/** The development key every fresh Vigil accepts (API_KEYS' default, tenant `local`). */
export const DEV_API_KEY = 'local-dev-key';
export const DEFAULT_VIGIL_URL = 'http://localhost:3000';

export interface CliTarget {
  baseUrl: string;
  apiKey: string;
  /** What the user should know about how the target was chosen (printed to stderr). */
  warnings: string[];
}

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** Where the API is and which key to send, from VIGIL_URL and VIGIL_API_KEY (docs/cli.md, "Environment"). */
export function cliTarget(env: Record<string, string | undefined>): CliTarget {
  const warnings: string[] = [];
  const raw = env.VIGIL_URL?.trim() || DEFAULT_VIGIL_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliUsageError(`VIGIL_URL is not a URL: "${raw}" (e.g. http://localhost:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliUsageError(`VIGIL_URL must be an http:// or https:// URL, got "${raw}"`);
  let apiKey = env.VIGIL_API_KEY?.trim();
  if (!apiKey) {
    apiKey = DEV_API_KEY;
    warnings.push(
      `VIGIL_API_KEY is not set: using the development key ${DEV_API_KEY}; set VIGIL_API_KEY to a key of the API's API_KEYS`,
    );
  }
  return { baseUrl: url.toString().replace(/\/+$/, ''), apiKey, warnings };
}
