import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ControlSignals } from '@vigil/tasks';

export class SliceAbortedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SliceAbortedError';
  }
}

/**
 * The slices running in this process, by task. A stop or pause signal aborts the matching
 * slice's AbortController at once, which cancels its in-flight model and tool calls.
 */
@Injectable()
export class ActiveSlices implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ActiveSlices.name);
  private readonly slices = new Map<string, { attempt: number; controller: AbortController }[]>();
  private unsubscribe?: () => Promise<void>;

  constructor(private readonly signals: ControlSignals) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.signals.subscribe((signal) => {
      for (const slice of this.slices.get(signal.taskId) ?? []) {
        // A late signal about an old attempt must not abort the attempt that replaced it.
        if (signal.attempt !== undefined && slice.attempt > signal.attempt) continue;
        this.logger.log(
          `task ${signal.taskId} attempt ${slice.attempt}: ${signal.action} requested, aborting its slice`,
        );
        slice.controller.abort(
          new SliceAbortedError(`task was ${signal.action === 'stop' ? 'stopped' : 'paused'}`),
        );
      }
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const slices of this.slices.values()) {
      for (const slice of slices) slice.controller.abort(new SliceAbortedError('worker shutting down'));
    }
    await this.unsubscribe?.();
  }

  register(taskId: string, attempt: number): AbortController {
    const controller = new AbortController();
    this.slices.set(taskId, [...(this.slices.get(taskId) ?? []), { attempt, controller }]);
    return controller;
  }

  release(taskId: string, controller: AbortController): void {
    const rest = (this.slices.get(taskId) ?? []).filter((slice) => slice.controller !== controller);
    if (rest.length > 0) this.slices.set(taskId, rest);
    else this.slices.delete(taskId);
  }
}
