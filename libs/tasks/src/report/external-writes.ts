import type { ActionRecord, JournalEntry } from '../history/history.types';

/** One external write as the runtime recorded it: the journal entry and the calls of its step. */
export interface WriteSummary {
  key: string;
  tool: string;
  args: Record<string, unknown>;
  state: 'done' | 'unknown';
  result: unknown;
  /** Times the write reached the external system, by the record (see `timesMade`). */
  made: number;
  /** Calls answered from the journal because the write had already been made. */
  deduplicated: number;
  /** Calls of this step that failed. */
  failedCalls: number;
  /** Found in the external system by a lookup after an attempt's outcome was unknown. */
  reconciled: boolean;
  /** Settled by a person's answer (an unresolved write, `POST /v1/tasks/:id/input`). */
  settledByPerson: boolean;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/**
 * How many times a write reached the external system. Each successful call not answered from the
 * journal is one. A `done` entry is itself proof of one: a write reconciled by lookup, or confirmed by
 * a person, was made by an attempt that died before it could record its call.
 */
function timesMade(successes: number, entry: JournalEntry): number {
  return entry.state === 'done' ? Math.max(successes, 1) : successes;
}

/**
 * Every write of a task, in the order of its first call (journal-only entries last, by time), from
 * the write journal and the action log only: what the runtime saw, never what the model said.
 */
export function summariseWrites(
  actions: readonly ActionRecord[],
  journal: ReadonlyMap<string, JournalEntry>,
): WriteSummary[] {
  const byKey = new Map<string, ActionRecord[]>();
  for (const action of actions) {
    if (action.key === null || !journal.has(action.key)) continue;
    const calls = byKey.get(action.key) ?? [];
    calls.push(action);
    byKey.set(action.key, calls);
  }
  const firstCall = (key: string): number => byKey.get(key)?.[0]?.step ?? Number.MAX_SAFE_INTEGER;
  const keys = [...journal.keys()].sort(
    (a, b) => firstCall(a) - firstCall(b) || (journal.get(a)!.at ?? 0) - (journal.get(b)!.at ?? 0),
  );
  return keys.map((key) => {
    const entry = journal.get(key)!;
    const calls = byKey.get(key) ?? [];
    const successes = calls.filter((call) => call.error === undefined && !call.deduplicated).length;
    const settledByPerson = entry.resolvedBy === 'person';
    return {
      key,
      tool: calls[0]?.tool ?? toolOfKey(key),
      args: entry.args ?? calls[0]?.args ?? {},
      state: entry.state === 'done' ? 'done' : 'unknown',
      result: entry.state === 'done' ? entry.result : undefined,
      made: timesMade(successes, entry),
      deduplicated: calls.filter((call) => call.deduplicated).length,
      failedCalls: calls.filter((call) => call.error !== undefined).length,
      reconciled: entry.reconciled === true,
      settledByPerson,
    };
  });
}

/** A journal entry no call was recorded for: its step key names the tool first (`tool:…`). */
function toolOfKey(key: string): string {
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(0, colon) : key;
}

const ID_FIELDS = ['id', 'externalId', 'key', 'name', 'path', 'url'] as const;

/** The part of a write's result a reader looks for: its id, or else the start of its text. */
export function resultId(result: unknown): string | null {
  if (result === undefined || result === null) return null;
  if (typeof result === 'string' || typeof result === 'number') return String(result);
  const record = asRecord(result);
  for (const field of ID_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' || typeof value === 'number') return `${field}: ${value}`;
  }
  const structured = asRecord(record.structuredContent);
  for (const field of ID_FIELDS) {
    const value = structured[field];
    if (typeof value === 'string' || typeof value === 'number') return `${field}: ${value}`;
  }
  // An MCP CallToolResult: the first text block says what was done.
  const content = Array.isArray(record.content) ? (record.content as unknown[]) : [];
  const text = content.map(asRecord).find((block) => typeof block.text === 'string')?.text;
  if (typeof text === 'string') return compactIfJson(text);
  if (typeof record.text === 'string') return record.text;
  return JSON.stringify(result) ?? null;
}

/** Text that is JSON (as many MCP servers answer) in its compact form; other text as it is. */
function compactIfJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text)) ?? text;
  } catch {
    return text;
  }
}

/** Arguments in one short line: long strings cut, so a file's whole content never fills the table. */
export function summariseArgs(args: Record<string, unknown>, max = 160): string {
  const shortened = Object.fromEntries(
    Object.entries(args).map(([name, value]) => [
      name,
      typeof value === 'string' && value.length > 60
        ? `${value.slice(0, 59)}… (${value.length} chars)`
        : value,
    ]),
  );
  const text = JSON.stringify(shortened) ?? '{}';
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
