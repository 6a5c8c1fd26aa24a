import type { Redis } from 'ioredis';

type SendCommand = (command: unknown, stream?: unknown, node?: unknown) => unknown;

/**
 * Counts, on the client, the commands one ioredis connection sends and the round trips they take:
 * a command sent alone is one round trip, a pipeline (or MULTI) is one round trip however long.
 * Instrumentation of the real client, not a stand-in: every command still goes to Redis.
 */
export class RoundTripCounter {
  commands = 0;
  roundTrips = 0;
  private readonly pipelines = new WeakSet<object>();

  constructor(redis: Redis) {
    const target = redis as unknown as { sendCommand: SendCommand };
    const original = target.sendCommand.bind(redis) as SendCommand;
    target.sendCommand = (command, stream, node) => {
      this.count(stream);
      return original(command, stream, node);
    };
  }

  /** Exposed for tests: `stream` is ioredis's per-pipeline writer when the command is batched. */
  count(stream: unknown): void {
    this.commands++;
    const batch = stream as { isPipeline?: boolean } | undefined;
    if (batch?.isPipeline) {
      if (this.pipelines.has(batch)) return;
      this.pipelines.add(batch);
    }
    this.roundTrips++;
  }

  reset(): void {
    this.commands = 0;
    this.roundTrips = 0;
  }
}
