import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { OBJECT_STORE, ObjectKeys, type ObjectStore } from '@vigil/object-store';
import { modelImageOf } from '../models/model-image';
import type { ModelImage } from '../models/model-provider';
import { type ArtifactOrigin, ArtifactKeeper } from './artifact-keeper';
import type { ToolOutcome } from './tool-executor';

/** How much of a stored output the record keeps, and the model reads, in bytes of its JSON. */
export const OUTPUT_PREVIEW_BYTES = 2048;
const MIME_TYPE = 'application/json';
/** MAX_ARTIFACT_BYTES's default, for a claim check built without it. */
const DEFAULT_MAX_ARTIFACT_BYTES = 20 * 1024 * 1024;

/** What the record keeps of an output too large for Redis: where the whole of it is, and its start. */
export interface StoredOutput {
  /** The SHA-256 of its bytes: its artifact id (ObjectKeys.artifact). */
  id: string;
  bytes: number;
  mimeType: string;
  /** Its first OUTPUT_PREVIEW_BYTES bytes, cut on a character boundary. */
  preview: string;
}

/** An output too large for Redis that could not be stored either: only its start is kept. */
export interface TruncatedOutput {
  bytes: number;
  mimeType: string;
  preview: string;
  reason: string;
}

/**
 * The claim check of large tool outputs (docs/operations.md, "The object store"): a tool's result
 * whose JSON is larger than MAX_INLINE_OUTPUT_BYTES is put in the object store under the task's
 * artifacts, by content hash, and the step records `{stored: {id, bytes, mimeType, preview}}`
 * instead — in the action log, the saved outputs and a write's journal entry — so no task can put
 * megabytes into Redis. The model reads the preview and a line saying the whole was stored.
 */
@Injectable()
export class OutputClaimCheck {
  private readonly maxInlineBytes: number;
  private readonly artifacts: ArtifactKeeper;

  constructor(
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(STORAGE_CONFIG)
    storage: Pick<StorageConfig, 'maxInlineOutputBytes'> & Partial<Pick<StorageConfig, 'maxArtifactBytes'>>,
  ) {
    this.maxInlineBytes = storage.maxInlineOutputBytes;
    this.artifacts = new ArtifactKeeper(store, storage.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES);
  }

  /**
   * The outcome as the step records it: its images and files kept as artifacts first
   * (ArtifactKeeper), then its result bounded (`bound`). The stored whole of a bounded result is
   * listed among the task's artifacts too, so the API serves it.
   */
  async keep(outcome: ToolOutcome, origin: ArtifactOrigin): Promise<ToolOutcome> {
    const kept = await this.artifacts.keep(outcome, origin);
    const bounded = await this.bound(kept, origin.task);
    const stored = (bounded.result as { stored?: StoredOutput } | undefined)?.stored;
    if (bounded !== kept && stored && bounded.ok) {
      const entry = {
        id: stored.id,
        tool: origin.tool,
        name: `output of ${bounded.key ?? origin.tool}`,
        mimeType: stored.mimeType,
        bytes: stored.bytes,
        createdAt: new Date().toISOString(),
      };
      bounded.artifacts = [...(bounded.artifacts ?? []), entry];
    }
    return bounded;
  }

  /**
   * A saved output as the tool gave it: a claim-checked one read back whole from the object store
   * (`read_output`, in this slice or any later one). Throws when its object is gone.
   */
  async whole(saved: unknown, task: { id: string; tenantId: string }): Promise<unknown> {
    if (!isStoredOutput(saved)) return saved;
    const body = await this.store.get(ObjectKeys.artifact(task.tenantId, task.id, saved.stored.id));
    if (!body)
      throw new Error(`its stored whole (artifact ${saved.stored.id}) is missing from the object store`);
    return JSON.parse(body.toString('utf8')) as unknown;
  }

  /**
   * The images a saved output refers to (`{artifact: {id, mimeType: image/…}}` parts), read back
   * from the object store and prepared for the model, so `read_output` of a screenshot step shows
   * the screenshot again (docs/models.md, "Images"); `missing` names those no longer stored.
   */
  async images(
    output: unknown,
    task: { id: string; tenantId: string },
  ): Promise<{ images: ModelImage[]; missing: string[] }> {
    const images: ModelImage[] = [];
    const missing: string[] = [];
    for (const id of new Set(imageArtifactIds(output))) {
      const body = await this.store.get(ObjectKeys.artifact(task.tenantId, task.id, id));
      const image = body && (await modelImageOf(id, body));
      if (image) images.push(image);
      else if (!body) missing.push(id);
    }
    return { images, missing };
  }

  /**
   * The outcome as the step records it. A result small enough is left as it is, its JSON kept on the
   * outcome (`resultJson`) so the ledger does not encode it again. A larger one is stored; when that
   * fails, a read becomes a failed step (the model may call it again) and a write, whose effect
   * happened, is recorded with its preview only (it is never made again).
   */
  async bound(outcome: ToolOutcome, task: { id: string; tenantId: string }): Promise<ToolOutcome> {
    if (!outcome.ok || outcome.result === undefined) return outcome;
    const json = JSON.stringify(outcome.result);
    if (json === undefined) return outcome;
    // A UTF-16 unit is at most 3 bytes of UTF-8: most results need no byte count at all.
    if (json.length * 3 <= this.maxInlineBytes || Buffer.byteLength(json) <= this.maxInlineBytes) {
      outcome.resultJson = json;
      return outcome;
    }
    const body = Buffer.from(json);
    const id = createHash('sha256').update(body).digest('hex');
    const preview = previewOf(body);
    try {
      await this.store.put(ObjectKeys.artifact(task.tenantId, task.id, id), body, MIME_TYPE);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const limit = `larger than MAX_INLINE_OUTPUT_BYTES (${this.maxInlineBytes})`;
      if (!outcome.journal)
        return {
          key: outcome.key,
          ok: false,
          error: `the tool's output (${body.length} bytes) is ${limit} and could not be stored: ${reason}`,
        };
      const truncated: TruncatedOutput = { bytes: body.length, mimeType: MIME_TYPE, preview, reason };
      const line = `[the write was made; its output (${body.length} bytes) is ${limit} and could not be stored (${reason}): only this start of it is kept]`;
      return replaced(outcome, { truncated }, `${viewOf(outcome, preview)}\n${line}`);
    }
    const stored: StoredOutput = { id, bytes: body.length, mimeType: MIME_TYPE, preview };
    const whole = outcome.key
      ? `read_output {"key":${JSON.stringify(outcome.key)}} returns it whole`
      : 'the record keeps only this start of it';
    const line = `[output truncated: the whole output (${body.length} bytes) is stored as artifact ${id}; ${whole}]`;
    return replaced(outcome, { stored }, `${viewOf(outcome, preview)}\n${line}`);
  }
}

/** True for a saved output the claim check replaced by its reference. */
export function isStoredOutput(saved: unknown): saved is { stored: StoredOutput } {
  const stored = (saved as { stored?: Partial<StoredOutput> } | null)?.stored;
  return (
    typeof stored?.id === 'string' && typeof stored.bytes === 'number' && typeof stored.preview === 'string'
  );
}

/** The outcome with `result` (and a write's journalled result) replaced, and what the model reads. */
function replaced(outcome: ToolOutcome, result: unknown, shown: string): ToolOutcome {
  const bounded: ToolOutcome = { ...outcome, result, shown, resultJson: undefined };
  if (outcome.journal) bounded.journal = { ...outcome.journal, result };
  return bounded;
}

/** The tool's own text for the model when it gave one, else the output's JSON: its start either way. */
function viewOf(outcome: ToolOutcome, preview: string): string {
  return outcome.shown === undefined ? preview : previewOf(Buffer.from(outcome.shown));
}

/** The first OUTPUT_PREVIEW_BYTES bytes of UTF-8 text, never ending in part of a character. */
function previewOf(text: Buffer): string {
  if (text.length <= OUTPUT_PREVIEW_BYTES) return text.toString('utf8');
  let end = OUTPUT_PREVIEW_BYTES;
  // Back up over continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (end > 0 && (text[end] & 0xc0) === 0x80) end--;
  return text.subarray(0, end).toString('utf8');
}

/** The ids of the image artifacts an output refers to, in order. */
function imageArtifactIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(imageArtifactIds);
  if (!value || typeof value !== 'object') return [];
  const artifact = (value as { artifact?: { id?: unknown; mimeType?: unknown } }).artifact;
  if (typeof artifact?.id === 'string' && String(artifact.mimeType).startsWith('image/'))
    return [artifact.id];
  return Object.values(value).flatMap(imageArtifactIds);
}
