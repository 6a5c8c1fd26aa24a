import { ObjectKeys, type ObjectStore } from '@vigil/object-store';
import type { NewArtifactEntry } from '@vigil/tasks';
import type { ToolBinary } from '@vigil/tools';
import { modelImageOf } from '../models/model-image';
import type { ModelImage } from '../models/model-provider';
import type { ToolOutcome } from './tool-executor';

/** Where a step's artifacts come from: the task they belong to and the tool as the task names it. */
export interface ArtifactOrigin {
  task: { id: string; tenantId: string };
  /** `browser.browser_take_screenshot`, `fetch_chart`. */
  tool: string;
}

/**
 * Keeps the images and files a tool returned (docs/api.md, "Artifacts"): each one's bytes go to
 * the object store under the task, by their SHA-256, before the step is recorded, so whatever the
 * artifact list names can be read back; the outcome then carries the list's entries for
 * record-step.lua and the images the model is shown (model-image.ts), and no bytes.
 * An artifact larger than MAX_ARTIFACT_BYTES is not kept, and the model is told. When the store
 * fails, a read becomes a failed step (the model may call it again); a write, whose effect
 * happened, is recorded with the artifact unkept and the model told why.
 */
export class ArtifactKeeper {
  constructor(
    private readonly store: ObjectStore,
    private readonly maxArtifactBytes: number,
  ) {}

  async keep(outcome: ToolOutcome, origin: ArtifactOrigin): Promise<ToolOutcome> {
    const { binaries, ...rest } = outcome;
    if (!binaries?.length || !outcome.ok) return rest;
    const artifacts: NewArtifactEntry[] = [];
    const images: ModelImage[] = [];
    const notes: string[] = [];
    const createdAt = new Date().toISOString();
    const seen = new Set<string>();
    for (const binary of binaries) {
      const { ref } = binary;
      if (seen.has(ref.id)) continue;
      seen.add(ref.id);
      if (ref.bytes > this.maxArtifactBytes) {
        notes.push(
          `[artifact ${ref.id} (${ref.mimeType}, ${ref.bytes} bytes) is larger than MAX_ARTIFACT_BYTES (${this.maxArtifactBytes}): not kept]`,
        );
        continue;
      }
      try {
        await this.store.put(
          ObjectKeys.artifact(origin.task.tenantId, origin.task.id, ref.id),
          binary.data,
          ref.mimeType,
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (!outcome.journal)
          return {
            key: outcome.key,
            ok: false,
            error: `the tool's ${ref.mimeType} answer (${ref.bytes} bytes) could not be stored: ${reason}`,
          };
        notes.push(
          `[the write was made; its ${ref.mimeType} part ${ref.id} could not be stored (${reason}): not kept]`,
        );
        continue;
      }
      artifacts.push(entryOf(binary, origin.tool, createdAt));
      const image = await modelImageOf(ref.id, binary.data);
      if (image) images.push(image);
    }
    const kept: ToolOutcome = rest;
    if (artifacts.length) kept.artifacts = artifacts;
    if (images.length) kept.images = images;
    if (notes.length) kept.shown = [outcome.shown ?? JSON.stringify(outcome.result), ...notes].join('\n');
    return kept;
  }
}

function entryOf(binary: ToolBinary, tool: string, createdAt: string): NewArtifactEntry {
  const entry: NewArtifactEntry = { ...binary.ref, tool, createdAt };
  if (binary.name) entry.name = binary.name;
  return entry;
}
