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
  private readonly slices = new Map<string, AbortController>();
  private unsubscribe?: () => Promise<void>;

  constructor(private readonly signals: ControlSignals) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.signals.subscribe((signal) => {
      const controller = this.slices.get(signal.taskId);
      if (!controller) return;
      this.logger.log(`task ${signal.taskId}: ${signal.action} requested, aborting its slice`);
      controller.abort(new SliceAbortedError(`task was ${signal.action === 'stop' ? 'stopped' : 'paused'}`));
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const controller of this.slices.values())
      controller.abort(new SliceAbortedError('worker shutting down'));
    await this.unsubscribe?.();
  }

  register(taskId: string): AbortController {
    const controller = new AbortController();
    this.slices.set(taskId, controller);
    return controller;
  }

  release(taskId: string, controller: AbortController): void {
    if (this.slices.get(taskId) === controller) this.slices.delete(taskId);
  }

  taskIds(): string[] {
    return [...this.slices.keys()];
  }
}
