/**
 * Artifacts (docs/api.md, "Artifacts"): an image a tool returned, or any binary or oversized output,
 * is kept in the object store under `ObjectKeys.artifact(tenant, task, id)`, its id the lowercase
 * hex SHA-256 of its bytes. Redis never holds the bytes: the action log and the saved outputs hold
 * an `ArtifactPart` where the tool's result had the image, and the task's artifact list
 * (`RedisKeys.artifacts`) holds one `ArtifactEntry` per artifact per step, appended by
 * record-step.lua with the step itself.
 */

/** What a recorded result says of one artifact. */
export interface ArtifactRef {
  /** Lowercase hex SHA-256 of the bytes. */
  id: string;
  mimeType: string;
  bytes: number;
  /** Pixel size of a raster image. */
  width?: number;
  height?: number;
}

/** An image or binary part of a tool result, as the action log and the saved outputs keep it. */
export interface ArtifactPart {
  artifact: ArtifactRef;
}

/** One entry of a task's artifact list, as stored (JSON) and as `GET /v1/tasks/:id/artifacts` lists it. */
export interface ArtifactEntry extends ArtifactRef {
  /** The action-log step whose result holds it (assigned by record-step.lua). */
  step: number;
  /** The tool as the task names it (`browser.browser_take_screenshot`). */
  tool: string;
  /** A name the tool gave it (an MCP resource's uri or name, a file name), when it gave one. */
  name?: string;
  /** ISO 8601, when the step was recorded. */
  createdAt: string;
}

/** An entry before record-step.lua numbers it. */
export type NewArtifactEntry = Omit<ArtifactEntry, 'step'>;

const ARTIFACT_ID = /^[0-9a-f]{64}$/;

/** True for a string that can be an artifact id (a lowercase hex SHA-256). */
export function isArtifactId(value: unknown): value is string {
  return typeof value === 'string' && ARTIFACT_ID.test(value);
}

/** True for a recorded result part that is an artifact reference. */
export function isArtifactPart(value: unknown): value is ArtifactPart {
  if (typeof value !== 'object' || value === null) return false;
  const ref = (value as { artifact?: unknown }).artifact;
  return (
    typeof ref === 'object' &&
    ref !== null &&
    isArtifactId((ref as ArtifactRef).id) &&
    typeof (ref as ArtifactRef).mimeType === 'string'
  );
}

/** The entries of a stored artifact list (JSON strings, oldest first); a malformed one is skipped. */
export function decodeArtifactEntries(stored: readonly string[]): ArtifactEntry[] {
  const entries: ArtifactEntry[] = [];
  for (const json of stored) {
    try {
      const entry = JSON.parse(json) as ArtifactEntry;
      if (isArtifactId(entry?.id)) entries.push(entry);
    } catch {
      // A malformed entry cannot name an artifact: it is left out of every view, never fatal.
      continue;
    }
  }
  return entries;
}
