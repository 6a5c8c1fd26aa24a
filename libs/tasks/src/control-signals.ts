import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';

/** stop and pause abort a slice; abort_call (from a Watcher) aborts a call past its deadline. */
export type ControlAction = 'stop' | 'pause' | 'abort_call';

export interface ControlSignal {
  taskId: string;
  action: ControlAction;
  /** Only slices of this attempt or older are aborted; none given: every slice of the task. */
  attempt?: number;
}

/**
 * Tells Workers at once that a task was stopped or paused, so the in-flight model or tool call is
 * aborted now rather than at the next step. The status change itself is already durable; a
 * missed signal only delays the abort until the next (refused) heartbeat.
 */
@Injectable()
export class ControlSignals {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  channel(): string {
    return this.keys.controlChannel();
  }

  async publish(signal: ControlSignal): Promise<void> {
    await this.redis.publish(this.channel(), JSON.stringify(signal));
  }

  /** Subscribes on a dedicated connection; returns a function that unsubscribes and closes it. */
  async subscribe(onSignal: (signal: ControlSignal) => void): Promise<() => Promise<void>> {
    const subscriber = this.redis.duplicate();
    subscriber.on('message', (_channel: string, message: string) => {
      try {
        onSignal(JSON.parse(message) as ControlSignal);
      } catch {
        // A malformed signal is ignored; the durable status still stops the slice at its next write.
      }
    });
    await subscriber.subscribe(this.channel());
    return async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    };
  }
}
