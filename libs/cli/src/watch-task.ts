import { modelDeltaText, type Task, type TaskEventFrame, type VigilClient } from '@vigil/client';
import { eventLines, progressOf } from './event-lines';
import { EXIT, exitCodeOf } from './exit-codes';
import { ModelText } from './model-text';
import type { Printer } from './printer';
import { outcomeLines, progressBar, progressText, statusText } from './task-format';

export interface WatchOptions {
  /** One JSON event per line, then the task, instead of lines for a person. */
  json: boolean;
  signal?: AbortSignal;
  /** Wait before following again a stream that ended while the task was still live (default 1 s). */
  refollowDelayMs?: number;
}

interface Progress {
  status: string;
  completed: number;
  total: number | null;
  step: string;
}

/**
 * What a person watching sees: the events' lines, the model's text, and the progress — a bar
 * redrawn in place on a terminal, a plain line at each tenth of the way (and each status change)
 * without one.
 */
class WatchView {
  private readonly modelText = new ModelText();
  private progress: Progress;
  private lastPlain = '';

  constructor(
    private readonly printer: Printer,
    task: Task,
  ) {
    this.progress = {
      status: statusText(task),
      completed: task.completedUnits ?? 0,
      total: task.totalUnits ?? null,
      step: task.currentStep ?? '',
    };
    printer.line(
      `task ${task.id}: "${task.title ?? ''}" (${task.kind ?? 'unknown kind'}), ${statusText(task)}`,
    );
    // A task that already stands still gets its outcome only.
    if (exitCodeOf(task.status) === undefined) this.drawProgress();
  }

  event(frame: TaskEventFrame): void {
    const delta = modelDeltaText(frame);
    if (delta !== undefined) {
      const callId = frame.data?.callId;
      this.printer.lines(this.modelText.add(typeof callId === 'string' ? callId : undefined, delta));
      return;
    }
    this.printer.lines(this.modelText.flush());
    this.printer.lines(eventLines(frame));
    const { completed, total } = progressOf(frame);
    if (completed !== undefined) this.progress.completed = completed;
    if (total !== undefined) this.progress.total = total;
    if (typeof frame.data?.currentStep === 'string') this.progress.step = frame.data.currentStep;
    if (frame.status) this.progress.status = frame.status;
    this.drawProgress();
  }

  reconnecting(lastEventId: string | undefined, delayMs: number): void {
    this.printer.warn(
      `the event stream broke: reconnecting in ${delayMs} ms after event ${lastEventId ?? '(none)'}`,
    );
  }

  finish(task: Task): void {
    this.printer.lines(this.modelText.flush());
    this.progress.completed = task.completedUnits ?? this.progress.completed;
    this.progress.total = task.totalUnits ?? this.progress.total;
    this.progress.status = statusText(task);
    // On a terminal the bar is left in its final state; plain output goes straight to the outcome.
    if (this.printer.tty) this.drawProgress();
    this.printer.endStatus();
    this.printer.lines(outcomeLines(task));
  }

  private drawProgress(): void {
    const { status, completed, total, step } = this.progress;
    if (this.printer.tty) {
      const bar = total ? `${progressBar(completed, total)} ` : '';
      this.printer.setStatus(`${bar}${progressText(completed, total)} ${status}${step ? ` · ${step}` : ''}`);
      return;
    }
    // A plain line at each tenth of the way (each unit when the total is unknown), not per step.
    const key = String(total ? Math.floor((10 * Math.min(completed, total)) / total) : completed);
    if (key === this.lastPlain) return;
    this.lastPlain = key;
    this.printer.line(`progress ${progressText(completed, total)} ${status}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows a task until it stands still (docs/cli.md, "Watching a task") and answers the exit
 * code: completed 0, failed 1, cancelled 2, waiting for a person 3. Events are followed from the
 * task's creation; a break in the stream is resumed with Last-Event-ID by the client. A waiting
 * event is believed only if the task still waits when read (a replay shows questions long
 * answered); a stream that ends while the task is live is followed again after its last event.
 */
export async function watchTask(
  client: VigilClient,
  id: string,
  printer: Printer,
  options: WatchOptions,
): Promise<number> {
  let task = await client.tasks.get(id);
  const view = options.json ? undefined : new WatchView(printer, task);
  const finish = (final: Task): number => {
    if (view) view.finish(final);
    else printer.jsonLine({ task: final });
    // A task still live here was given up on (the caller aborted).
    return exitCodeOf(final.status) ?? EXIT.error;
  };
  if (exitCodeOf(task.status) !== undefined) return finish(task);
  let lastEventId: string | undefined;
  for (;;) {
    const events = client.tasks.events(id, {
      lastEventId,
      signal: options.signal,
      onReconnect: (info) => view?.reconnecting(info.lastEventId, info.delayMs),
    });
    for await (const frame of events) {
      if (frame.id) lastEventId = frame.id;
      if (view) view.event(frame);
      else printer.jsonLine(frame);
      if (frame.type !== 'task.waiting_on_human') continue;
      task = await client.tasks.get(id);
      if (task.status === 'waiting_on_human') return finish(task);
    }
    task = await client.tasks.get(id);
    if (exitCodeOf(task.status) !== undefined) return finish(task);
    if (options.signal?.aborted) return finish(task);
    await sleep(options.refollowDelayMs ?? 1_000);
  }
}
