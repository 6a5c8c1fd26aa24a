import { CheckUnavailableError } from '@vigil/kinds';
import { MetaApiError, MetaTransportError } from '@vigil/meta-graph';

/** True when the API could not answer (down, 5xx, throttled) even after the client's retries. */
export function isApiUnavailable(err: unknown): boolean {
  if (err instanceof MetaTransportError) return true;
  return err instanceof MetaApiError && (err.retryable || err.httpStatus >= 500 || err.httpStatus === 429);
}

/** Runs a check's reads; an unreachable API becomes CheckUnavailableError (neither pass nor fail). */
export async function againstApi<T>(check: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!isApiUnavailable(err)) throw err;
    throw new CheckUnavailableError(`${check}: the Meta API could not be read (${(err as Error).message})`);
  }
}
