import { MetaApiError, type GraphNode, type MetaGraphClient } from '@vigil/meta-graph';

/** Helpers for read-back summaries: short lists the model can act on. */

const MAX_LISTED = 20;

export function capped(list: string[]): string[] {
  return list.length <= MAX_LISTED
    ? list
    : [...list.slice(0, MAX_LISTED), `… and ${list.length - MAX_LISTED} more`];
}

/** Nodes grouped by name. */
export function byName(nodes: GraphNode[]): Map<string, GraphNode[]> {
  const out = new Map<string, GraphNode[]>();
  for (const node of nodes) out.set(String(node.name), [...(out.get(String(node.name)) ?? []), node]);
  return out;
}

/** An object by id, or null when Meta says it does not exist; any other error (token, permission) is thrown. */
export async function getIfExists(
  client: MetaGraphClient,
  id: string,
  fields: string[],
  signal: AbortSignal,
): Promise<GraphNode | null> {
  try {
    return await client.getObject(id, fields, signal);
  } catch (err) {
    if (err instanceof MetaApiError && err.isNotFound) return null;
    throw err;
  }
}
