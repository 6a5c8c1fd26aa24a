import type { SteerInstruction } from '../steering/steering.types';
import type { Finding } from './finding';

/**
 * What the runtime records beside a task's record (docs/ARCHITECTURE.md, "Redis key layout"):
 * the action log, the logical steps done, their saved outputs, findings and the write journal.
 * The model never writes any of it; the Worker records it as calls happen.
 */

/** One call of the runtime-recorded action log. */
export interface ActionRecord {
  step: number;
  attempt: number;
  slice: number;
  tool: string;
  /** The logical step (`adset:0:3`): the idempotency key's second half. */
  key: string | null;
  args: Record<string, unknown>;
  result?: unknown;
  error?: string;
  startedAt: number;
  durationMs: number;
  /** Set when the runtime answered from the write journal instead of calling the external system. */
  deduplicated?: boolean;
  /** The code version of the Worker that ran the call. */
  codeVersion?: string;
  /**
   * The session of the stateful server that answered (docs/missions.md, "Stateful tool servers"):
   * a later call in another session means what the server held had been lost in between.
   */
  serverSession?: string;
  /**
   * Model calls of the attempt in a row, this step's included, that completed no new unit and
   * recorded no finding (absent: 0); a later slice of the attempt counts on from it
   * (docs/ARCHITECTURE.md, "Stalls, diagnosed").
   */
  idleCalls?: number;
}

/** A write journal entry: the intent before the external call, `done` with its result after. */
export interface JournalEntry {
  state: 'intent' | 'done';
  attempt: number;
  at: number;
  args?: Record<string, unknown>;
  result?: unknown;
  reconciled?: boolean;
  /** A person answered that the write happened (`POST /v1/tasks/:id/input` with `resolution: "done"`). */
  resolvedBy?: 'person';
}

/**
 * A write whose outcome is unknown and that can be neither looked up nor safely repeated: the
 * task waits for a person to say whether it happened (statusReason `unresolved_write`).
 */
export interface UnresolvedWrite {
  /** The logical step, the journal's key. */
  key: string;
  /** The tool as the task names it (`create_ticket`, `files.write_file`). */
  tool: string;
  args: Record<string, unknown>;
}

/** The part of a task's recorded context a slice works from (the journal stays in Redis). */
export interface SliceContext {
  doneSteps: Set<string>;
  outputs: Map<string, unknown>;
  findings: Finding[];
  /** The latest RECENT_ACTIONS entries of the action log, oldest first: shown in full in the prompt. */
  recentActions?: ActionRecord[];
}

/** How many of the latest actions a slice's opening shows in full (docs/models.md, "Prompts that stay bounded"). */
export const RECENT_ACTIONS = 3;

/** All that is known about a task's past, all of it recorded by the runtime: the Watcher's view. */
export interface TaskContext extends SliceContext {
  actions: ActionRecord[];
  journal: Map<string, JournalEntry>;
  /** The instructions given while it ran, oldest first (docs/api.md, "Steering"). */
  steering?: SteerInstruction[];
}

/** A slice context as the slice run that last recorded a step left it (see load-slice.lua). */
export interface HeldContext<Plan = unknown> {
  attempt: number;
  /** Length of the task's action log after that run's last step. */
  actions: number;
  /** The task's contextVersion after it. */
  version: number;
  /** The id of that slice run. */
  writer: string;
  context: SliceContext;
  /** What the holder derived from the task's input once (inputs never change). */
  plan?: Plan;
}

export function emptySliceContext(): SliceContext {
  return { doneSteps: new Set(), outputs: new Map(), findings: [] };
}
