import sharp from 'sharp';
import { type ArtifactRef, artifactIdOf, artifactMimeType, rasterTypeOf } from '@vigil/tasks';

/**
 * An image or other binary part of a tool's answer (docs/api.md, "Artifacts"): its bytes, held in
 * memory only until the Worker puts them in the object store, and the reference that takes their
 * place in the recorded result — the same object, so whoever stores the bytes stores what the
 * record names.
 */
export interface ToolBinary {
  ref: ArtifactRef;
  data: Buffer;
  /** What the tool called it (an MCP resource's uri, a file name), when it did. */
  name?: string;
}

/**
 * The binary and its reference. A raster image (by its magic bytes, whatever the tool declared)
 * gets its pixel size from sharp's header read; bytes sharp cannot read keep no size — they are
 * still kept, only never shown to a model as an image.
 */
export async function toolBinaryOf(
  data: Buffer,
  declaredType: string | undefined,
  name?: string,
): Promise<ToolBinary> {
  const ref: ArtifactRef = {
    id: artifactIdOf(data),
    mimeType: artifactMimeType(declaredType),
    bytes: data.length,
  };
  if (rasterTypeOf(data)) {
    // A header sharp cannot read is a damaged image: kept, sized as unknown (the ref has no size).
    const size = await sharp(data)
      .metadata()
      .catch(() => null);
    if (size?.width && size.height) {
      ref.width = size.width;
      ref.height = size.height;
    }
  }
  return { ref, data, ...(name ? { name } : {}) };
}

/** One line naming a binary part for the model and the record: `[image <id> image/png 640x480, 22082 bytes]`. */
export function binaryLine(
  binary: Pick<ToolBinary, 'ref' | 'name'>,
  kind = kindOf(binary.ref.mimeType),
): string {
  const { ref } = binary;
  const size = ref.width && ref.height ? ` ${ref.width}x${ref.height}` : '';
  const name = binary.name ? ` (${binary.name})` : '';
  return `[${kind} ${ref.id} ${ref.mimeType}${size}, ${ref.bytes} bytes${name}]`;
}

function kindOf(mimeType: string): string {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'file';
}
