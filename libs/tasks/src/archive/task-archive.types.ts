/**
 * The archive of one finished task (docs/operations.md, "Retention and archives"): everything Redis
 * held about it, exactly as stored, so the API's views of an archived task come from the same
 * decoders as a live one and read byte for byte the same. Written gzipped to
 * `archive/<tenant>/<task id>.json.gz`; `sha256` is the SHA-256 (hex) of `JSON.stringify(payload)`,
 * checked after the write (read back) and on every read.
 */
export interface TaskArchiveDocument {
  format: typeof TASK_ARCHIVE_FORMAT;
  sha256: string;
  payload: TaskArchivePayload;
}

export const TASK_ARCHIVE_FORMAT = 'vigil.task-archive/1';

export interface TaskArchivePayload {
  taskId: string;
  tenantId: string;
  /** When its retention ran out (the retention index's score): fixed, so a re-run writes the same bytes. */
  expiredAt: number;
  /** The task hash, field -> value, as stored. */
  record: Record<string, string>;
  /** List entries as stored (JSON strings), oldest first. */
  actions: string[];
  findings: string[];
  messages: string[];
  /** Hash fields as stored. */
  outputs: Record<string, string>;
  journal: Record<string, string>;
  /** Logical steps that succeeded, sorted. */
  doneSteps: string[];
  /** Child task ids, oldest first. */
  children: string[];
  /** The report (markdown) as `GET /v1/tasks/:id/report` answered before archiving. */
  report: string;
  /** The task's artifact list (`ArtifactEntry` JSON strings), as stored, oldest first. */
  artifacts: string[];
  /** The instructions given while it ran (`SteerInstruction` JSON strings), oldest first; absent when none. */
  steering?: string[];
}
