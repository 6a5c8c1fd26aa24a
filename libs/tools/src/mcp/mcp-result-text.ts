import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { scrubSecrets } from '@vigil/platform';
import type { ArtifactRef } from '@vigil/tasks';
import { binaryLine } from '../binary/tool-binary';
import { boundText } from '../common/bounded-text';

/** An embedded resource's text is cut shorter: it sits beside the other parts. */
const RESOURCE_TEXT_LIMIT = 2_000;

type ContentPart = CallToolResult['content'][number];

/**
 * What a model is shown of an MCP tool result (docs/missions.md, "Tools from outside"): the
 * text parts; structuredContent as JSON when there is no text part (servers that send both put the
 * same data in text, as the spec asks, and it is shown once); images and audio as a line naming their type and size (with
 * their artifact id once they were taken out of the result, mcp-binaries.ts); resources by uri (an embedded text resource with a bounded excerpt). The whole is bounded (boundText).
 */
export function mcpResultText(result: CallToolResult): string {
  const content = result.content ?? [];
  const parts = content.map(describePart);
  if (result.structuredContent !== undefined && !content.some((part) => part.type === 'text')) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  // A server may echo a header or variable it was given: the model never sees a catalog secret.
  return boundText(scrubSecrets(parts.join('\n')));
}

function describePart(part: ContentPart): string {
  const stored = (part as { artifact?: ArtifactRef; uri?: string }).artifact;
  if (stored) {
    const uri = (part as { uri?: string }).uri;
    return binaryLine(
      { ref: stored, ...(uri ? { name: uri } : {}) },
      part.type === 'resource' ? 'resource' : part.type,
    );
  }
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
    case 'resource_link':
      return `[resource ${part.uri}${part.name ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const resource = part.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        return `[resource ${resource.uri}]\n${boundText(resource.text, RESOURCE_TEXT_LIMIT)}`;
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${base64Bytes(blob)} bytes]`;
    }
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
