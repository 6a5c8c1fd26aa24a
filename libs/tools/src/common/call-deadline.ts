import { scrubSecrets } from '@vigil/platform';
import { ToolCallError } from '../tool-gateway';

/**
 * One call's deadline joined with the caller's AbortSignal (a stop, a drain): whichever comes first
 * ends the call, and the error says which (docs/missions.md, "Tools from outside").
 */
export class CallDeadline {
  readonly signal: AbortSignal;
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;

  // One controller and one timer rather than AbortSignal.any([caller, AbortSignal.timeout()]): that
  // pair cost about 20 µs a call here, a quarter of what the gateway adds to an MCP call (bench
  // `mcp-overhead`). dispose() ends both once the call is over.
  constructor(
    readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    const controller = new AbortController();
    this.signal = controller.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      controller.abort(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    this.timer.unref();
    this.onCallerAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** The call is over: the timer and the caller's listener go. */
  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  /** The error for a failed call: the deadline or the abort when either fired, else the cause. */
  failure(what: string, error: unknown): ToolCallError {
    if (error instanceof ToolCallError) return error;
    // Past this point the request may have been sent: what it did is unknown.
    const unknown = { outcomeUnknown: true };
    if (this.caller?.aborted) return new ToolCallError(`${what}: aborted`, unknown);
    if (this.timedOut) return new ToolCallError(`${what}: no answer within ${this.timeoutMs} ms`, unknown);
    // A transport's message may quote a URL or header it was given: scrubbed of catalog secrets.
    const message = scrubSecrets(error instanceof Error ? error.message : String(error));
    return new ToolCallError(`${what}: ${message}`, unknown);
  }

  /** Rejects as soon as the signal fires, whatever `work` does. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.signal.reason as Error);
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error as Error);
        },
      );
    });
  }
}
