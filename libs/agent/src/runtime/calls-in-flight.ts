import type { InFlightCall } from '@vigil/tasks';
import type { CallWatchdog, Watched } from './call-watchdog';

/**
 * A slice's model and tool calls under their deadlines: the watchdog tells the runner when one is
 * late (`onHungCall`), which aborts the slice's signal, so the call (and with it the attempt) ends
 * as `hung_call`. The caller awaits the call and then hands the entry to `end` (no closure per
 * call: this runs twice a step).
 */
export class CallsInFlight {
  /** The model or tool call in flight, for the heartbeat (null between calls). */
  current: InFlightCall | null = null;

  constructor(
    private readonly watchdog: Pick<CallWatchdog, 'watch' | 'release'>,
    private readonly onHungCall: (call: InFlightCall) => void,
  ) {}

  begin(kind: InFlightCall['kind'], name: string, timeoutMs: number): Watched {
    const since = Date.now();
    const inFlight: InFlightCall = { kind, name, since, deadlineAt: since + timeoutMs };
    this.current = inFlight;
    return this.watchdog.watch(inFlight, this.onHungCall);
  }

  end(watched: Watched): void {
    this.watchdog.release(watched);
    if (this.current === watched.call) this.current = null;
  }
}
