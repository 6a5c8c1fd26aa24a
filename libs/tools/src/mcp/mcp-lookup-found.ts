import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolvePointer } from '../common/json-pointer';

/**
 * Where a lookup's `found` pointer is read in an MCP result (docs/missions.md, "Tools from
 * outside"), first hit wins: the CallToolResult itself (`/structuredContent/id`), its
 * structuredContent (`/id`), then the JSON of its first text part (`/id`), since many servers
 * answer with JSON in text only. Present and not null: the write happened and that is its result;
 * otherwise null.
 */
export function mcpLookupFound(result: CallToolResult, pointer: string): unknown {
  const candidates: (() => unknown)[] = [
    () => result,
    () => result.structuredContent,
    () => {
      const first = result.content?.[0];
      if (first?.type !== 'text') return undefined;
      try {
        return JSON.parse(first.text) as unknown;
      } catch {
        return undefined;
      }
    },
  ];
  for (const candidate of candidates) {
    const document = candidate();
    if (document === undefined) continue;
    const value = resolvePointer(document, pointer);
    if (value !== undefined && value !== null) return value;
  }
  return null;
}
