import { MetaRequestAbortedError } from './errors';

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Timer-based sleep that ends early when `signal` aborts. */
export const defaultSleep: SleepFn = (ms, signal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MetaRequestAbortedError({ cause: signal.reason });
}

/** Runs `sleep` (possibly injected and abort-unaware) but rejects as soon as `signal` aborts. */
export async function abortableSleep(
  sleep: SleepFn,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  throwIfAborted(signal);
  if (!signal) return sleep(ms);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new MetaRequestAbortedError({ cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
  throwIfAborted(signal);
}
