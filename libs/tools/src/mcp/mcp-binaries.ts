import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ToolBinary, toolBinaryOf } from '../binary/tool-binary';

type ContentPart = CallToolResult['content'][number];

/**
 * An MCP result with its binary parts taken out (docs/api.md, "Artifacts"): each `image` and
 * `audio` part, and each embedded resource holding a `blob`, becomes `{type, artifact: {id,
 * mimeType, bytes, width?, height?}}` (a resource keeps its `uri`), and its bytes are returned
 * beside it for the Worker to store. What is recorded never holds base64.
 */
export async function withoutBinaries(
  result: CallToolResult,
): Promise<{ result: CallToolResult; binaries: ToolBinary[] }> {
  const content = result.content ?? [];
  if (!content.some(isBinaryPart)) return { result, binaries: [] };
  const binaries: ToolBinary[] = [];
  const parts = await Promise.all(
    content.map(async (part): Promise<unknown> => {
      if (part.type === 'image' || part.type === 'audio') {
        const binary = await toolBinaryOf(Buffer.from(part.data, 'base64'), part.mimeType);
        binaries.push(binary);
        return { type: part.type, artifact: binary.ref };
      }
      if (part.type === 'resource' && 'blob' in part.resource && typeof part.resource.blob === 'string') {
        const { uri, mimeType, blob } = part.resource;
        const binary = await toolBinaryOf(Buffer.from(blob, 'base64'), mimeType, uri);
        binaries.push(binary);
        return { type: 'resource', uri, artifact: binary.ref };
      }
      return part;
    }),
  );
  // Listed in the order of the parts, whatever order their sizes were read in.
  const order = new Map(parts.map((part, index) => [artifactIdOfPart(part), index]));
  binaries.sort((a, b) => (order.get(a.ref.id) ?? 0) - (order.get(b.ref.id) ?? 0));
  return { result: { ...result, content: parts as CallToolResult['content'] }, binaries };
}

function isBinaryPart(part: ContentPart): boolean {
  return (
    part.type === 'image' ||
    part.type === 'audio' ||
    (part.type === 'resource' && 'blob' in part.resource && typeof part.resource.blob === 'string')
  );
}

function artifactIdOfPart(part: unknown): string | undefined {
  return (part as { artifact?: { id?: string } }).artifact?.id;
}
