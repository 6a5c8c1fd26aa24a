import { Inject, Injectable } from '@nestjs/common';
import type { ProviderName } from '@vigil/config';
import type { Redis } from 'ioredis';
import { BoundedMemo, REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode, scriptRefusal } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import { TASK_SETTINGS, type TaskSettings } from '../task-settings';
import type { TaskStatus } from '../task-status';
import type { NewArtifactEntry } from '../artifacts/artifact.types';
import type { ActionRecord, JournalEntry } from './history.types';
import { StepCommit, type ShardPart } from './step-commit';

export interface StepRecord {
  taskId: string;
  attempt: number;
  action: Omit<ActionRecord, 'step'>;
  succeeded: boolean;
  /** The output to save under the step's key, already JSON-encoded. */
  outputJson?: string;
  journal?: JournalEntry;
  finding?: unknown;
  currentStep: string;
  message?: Record<string, unknown>;
  spentUsd?: number;
  /** The task-budget reservation of the model call this step records the cost of: released. */
  releaseUsd?: number;
  /** Id of the slice run recording the step (see load-slice.lua); unique per run. */
  writer?: string;
  /** The step's number within its slice run: a repeat of a recorded one changes nothing (record-step.lua). */
  writerSeq?: number;
  /** The artifacts the step's result refers to: listed under the step's number (record-step.lua). */
  artifacts?: readonly NewArtifactEntry[];
}

export interface RecordedStep {
  step: number;
  completedUnits: number;
  consecutiveErrors: number;
  /** The task's context version after this step (see load-slice.lua). */
  contextVersion: number;
  /** How many instructions the task was given so far (steer-task.lua): read with the step, no command more. */
  steerCount: number;
}

/** Tasks whose key lists are kept: about the Worker's concurrency, many times over. */
const KEY_CACHE_SIZE = 4096;

/**
 * Writes one tool step's bookkeeping in a single fenced script call (one round trip), together with
 * the steps the Worker's other slices record in the same tick (StepCommit); a slice continued in
 * place (`continueSlice`) rides the same call.
 */
@Injectable()
export class StepRecorder {
  /** A task's seven keys of includes/record-step.lua and its shard: built once per task, not on every step. */
  private readonly keyLists = new BoundedMemo<{ shard: number; keys: readonly string[] }>(KEY_CACHE_SIZE);
  /** What the steps of a shard share in a call, by shard. */
  private readonly shardParts = new Map<number, ShardPart>();
  private readonly commit: StepCommit;

  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(TASK_SETTINGS)
    private readonly config: Pick<
      TaskSettings,
      'staleAfterMs' | 'eventStreamMaxLen' | 'progressEventIntervalMs'
    >,
    scripts: TaskScripts = new TaskScripts(redis),
  ) {
    this.commit = new StepCommit(scripts, (shard) => this.shardPartOf(shard));
  }

  /**
   * How far past the stale deadline a step moves the deadline index, so that a run of steps moves
   * it once per slack rather than once per step (record-step.lua): an eighth of STALE_AFTER_MS, the
   * most a dead Worker's silence may go unnoticed beyond it.
   */
  private get deadlineSlackMs(): number {
    return Math.floor(this.config.staleAfterMs / 8);
  }

  async record(record: StepRecord, now = Date.now()): Promise<RecordedStep> {
    const id = record.taskId;
    const { shard, keys } = this.keysOf(id);
    const [
      code,
      status,
      attempt,
      step,
      completedUnits = 0,
      consecutiveErrors = 0,
      contextVersion = 0,
      steerCount = 0,
    ] = await this.commit.record(shard, keys, [
      record.attempt,
      now,
      now + this.config.staleAfterMs,
      JSON.stringify(record.action),
      record.action.key ?? '',
      record.succeeded ? '1' : '0',
      record.outputJson ?? '',
      record.journal ? JSON.stringify(record.journal) : '',
      record.finding === undefined ? '' : JSON.stringify(record.finding),
      record.currentStep,
      record.message ? JSON.stringify(record.message) : '',
      record.spentUsd ? record.spentUsd.toFixed(6) : '',
      record.writer ?? '',
      record.releaseUsd ? record.releaseUsd.toFixed(6) : '',
      record.writerSeq ?? '',
      ...(record.artifacts ?? []).map((entry) => JSON.stringify(entry)),
    ]);
    if (code !== ScriptCode.Applied)
      throw scriptRefusal(code, id, {
        status: status as TaskStatus,
        storedAttempt: attempt,
        writerAttempt: record.attempt,
      });
    return { step, completedUnits, consecutiveErrors, contextVersion, steerCount };
  }

  /**
   * The continue_slice move (lua/includes/continue-slice.lua): running → running for `attempt`,
   * one more slice run by this Worker, written with the steps of the same tick. Throws
   * StaleAttemptError for another attempt and IllegalTransitionError for a task not running (a
   * stop, pause or recovery came between the slices), as the move's transition would. Answers the
   * task's slice count after it.
   */
  async continueSlice(
    taskId: string,
    move: { attempt: number; workerId: string; provider: ProviderName; codeVersion: string },
    now = Date.now(),
  ): Promise<number> {
    const { shard, keys } = this.keysOf(taskId);
    const [code, status, attempt, sliceCount] = await this.commit.record(
      shard,
      keys,
      [move.attempt, now, now + this.config.staleAfterMs, move.workerId, move.provider, move.codeVersion],
      'continue',
    );
    if (code !== ScriptCode.Applied)
      throw scriptRefusal(code, taskId, {
        status: status as TaskStatus,
        storedAttempt: attempt,
        writerAttempt: move.attempt,
        to: 'running',
      });
    return sliceCount;
  }

  /** record-steps.lua's keys and arguments for every step of a shard: its indexes and the settings. */
  private shardPartOf(shard: number): ShardPart {
    let part = this.shardParts.get(shard);
    if (!part) {
      part = {
        keys: [this.keys.events(shard), this.keys.deadlineIndex(shard), this.keys.callDeadlineIndex(shard)],
        args: [this.config.eventStreamMaxLen, this.config.progressEventIntervalMs, this.deadlineSlackMs].map(
          String,
        ),
      };
      this.shardParts.set(shard, part);
    }
    return part;
  }

  private keysOf(id: string): { shard: number; keys: readonly string[] } {
    const kept = this.keyLists.get(id);
    if (kept) return kept;
    return this.keyLists.set(id, {
      shard: this.keys.shardOf(id),
      keys: [
        this.keys.task(id),
        this.keys.actions(id),
        this.keys.doneSteps(id),
        this.keys.outputs(id),
        this.keys.journal(id),
        this.keys.findings(id),
        this.keys.artifacts(id),
      ],
    });
  }
}
