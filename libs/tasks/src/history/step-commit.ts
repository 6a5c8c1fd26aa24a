import { storeFullOf } from '../task-errors';
import type { TaskScripts } from '../scripts/task-scripts';

/**
 * One entry's answer: record-step's for a step (lua/includes/record-step.lua), continue-slice's
 * code, status, attempt and slice count for a continuation.
 */
export type StepReply = [number, string, number, number, number?, number?, number?, number?];

/** What an entry of record-steps.lua is: a recorded step, or a slice continued in place. */
export type CommitEntry = 'step' | 'continue';

/** One line of record-steps.lua's answer: a step's fields, or the error its script raised. */
function stepReplyOf(line: string): StepReply | { failed: unknown } {
  if (line.startsWith('error,')) return { failed: storeFullOf(new Error(line.slice('error,'.length))) };
  const fields = line.split(',');
  const reply = new Array(fields.length) as unknown as StepReply;
  for (let i = 0; i < fields.length; i++) reply[i] = i === 1 ? fields[i] : Number(fields[i]);
  return reply;
}

/**
 * Most steps one record-steps.lua call carries: a call holds Redis for all of them, so a burst of
 * many slices goes as several calls rather than one long one.
 */
export const MAX_STEPS_PER_CALL = 64;

/** What the steps of one shard share in a call: its three keys and record-steps.lua's ARGV[1..3]. */
export interface ShardPart {
  keys: readonly string[];
  args: readonly string[];
}

interface PendingStep {
  entry: CommitEntry;
  keys: readonly string[];
  args: (string | number)[];
  resolve: (reply: StepReply) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit of the steps a Worker records (docs/ARCHITECTURE.md, "Throughput: what one step
 * costs"): every step sent within one tick of the event loop — a burst of Redis replies resumes
 * dozens of slices at once, and each then records its next step — goes in one record-steps.lua
 * call, in the order sent, and each caller hears its own step's answer. Nothing waits past the
 * current tick. A slice continued in place (continue_slice) goes the same way, as an entry of the
 * call. A call carries the entries of one shard only: its keys share the shard's slot, as every
 * script call's do, so the same calls run on a Redis Cluster.
 */
export class StepCommit {
  private pending = new Map<number, PendingStep[]>();
  private flushQueued = false;

  constructor(
    private readonly scripts: Pick<TaskScripts, 'runMany'>,
    private readonly shardPart: (shard: number) => ShardPart,
  ) {}

  /**
   * Records one entry (its seven keys and its script's arguments: record-step's for a step,
   * continue-slice's for a continuation) with the others of this tick.
   */
  record(
    shard: number,
    keys: readonly string[],
    args: (string | number)[],
    entry: CommitEntry = 'step',
  ): Promise<StepReply> {
    return new Promise<StepReply>((resolve, reject) => {
      let steps = this.pending.get(shard);
      if (!steps) this.pending.set(shard, (steps = []));
      steps.push({ entry, keys, args, resolve, reject });
      if (steps.length >= MAX_STEPS_PER_CALL) {
        this.pending.delete(shard);
        this.send(shard, steps);
      } else if (!this.flushQueued) {
        this.flushQueued = true;
        // process.nextTick, queued from a promise callback, runs once the tick's callbacks have run.
        process.nextTick(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    const groups = this.pending;
    this.pending = new Map();
    for (const [shard, steps] of groups) this.send(shard, steps);
  };

  private send(shard: number, steps: PendingStep[]): void {
    const part = this.shardPart(shard);
    const keys = [...part.keys];
    const args = [...part.args];
    for (const step of steps) {
      for (const key of step.keys) keys.push(key);
      args.push(step.entry, String(step.args.length));
      for (const arg of step.args) args.push(typeof arg === 'string' ? arg : String(arg));
    }
    this.scripts.runMany<string>('record-steps', keys, args).then(
      (answer) => {
        const lines = answer.split('\n');
        for (let i = 0; i < steps.length; i++) {
          const reply = stepReplyOf(lines[i] ?? 'error,no answer for the step');
          if ('failed' in reply) steps[i].reject(reply.failed);
          else steps[i].resolve(reply);
        }
      },
      // The call itself failed (Redis full before any write, the connection lost): each step hears it.
      (error: unknown) => {
        for (const step of steps) step.reject(error);
      },
    );
  }
}
