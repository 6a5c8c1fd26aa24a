import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DomainError } from '../task-errors';
import { TASK_ARCHIVE_FORMAT, type TaskArchiveDocument, type TaskArchivePayload } from './task-archive.types';

/** An archive exists but cannot be trusted: not gzip, not JSON, another format, another task, or a checksum mismatch. */
export class ArchiveUnreadableError extends DomainError {
  readonly kind = 'upstream';

  constructor(
    readonly taskId: string,
    readonly problem: string,
  ) {
    super(`the archive of task ${taskId} cannot be read: ${problem}`);
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The archive's bytes: gzipped JSON with the payload's SHA-256 beside it. Same payload, same bytes. */
export function encodeArchive(payload: TaskArchivePayload): Buffer {
  const body = JSON.stringify(payload);
  // JSON.stringify of the TaskArchiveDocument {format, sha256, payload}, the payload not serialized twice.
  const document = `{"format":${JSON.stringify(TASK_ARCHIVE_FORMAT)},"sha256":"${sha256(body)}","payload":${body}}`;
  return gzipSync(document, { level: 6 });
}

/** The payload of an archive's bytes, checked end to end; throws ArchiveUnreadableError naming the task. */
export function decodeArchive(taskId: string, bytes: Buffer): TaskArchivePayload {
  let document: TaskArchiveDocument;
  try {
    document = JSON.parse(gunzipSync(bytes).toString('utf8')) as TaskArchiveDocument;
  } catch (error) {
    throw new ArchiveUnreadableError(taskId, `not a gzipped JSON document (${(error as Error).message})`);
  }
  if (document?.format !== TASK_ARCHIVE_FORMAT)
    throw new ArchiveUnreadableError(taskId, `unknown format ${JSON.stringify(document?.format)}`);
  if (!document.payload || sha256(JSON.stringify(document.payload)) !== document.sha256)
    throw new ArchiveUnreadableError(taskId, 'checksum mismatch');
  if (document.payload.taskId !== taskId)
    throw new ArchiveUnreadableError(taskId, `it holds task ${String(document.payload.taskId)}`);
  return document.payload;
}
