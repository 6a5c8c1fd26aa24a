import type { ToolCatalog } from '@vigil/config';
import { ToolNotAllowedError } from './tool-gateway';

/** What a name of a mission's `tools` list points at in the catalog. */
export type CatalogReference =
  | { kind: 'http'; tool: string }
  | { kind: 'server'; server: string }
  | { kind: 'server-tool'; server: string; tool: string };

/**
 * Resolves a name against the catalog and the tenant's allow list (docs/missions.md, "Tools
 * from outside"): an HTTP tool's name, a server's name (all its tools) or `server.tool`, allowed when
 * the tenant's `allow` lists that name or (for `server.tool`) its server. Throws ToolNotAllowedError
 * naming the entry. Whether the server has that tool is for its tools/list to say.
 */
export function referenceTo(
  catalog: ToolCatalog | undefined,
  tenantId: string,
  name: string,
): CatalogReference {
  if (!catalog)
    throw new ToolNotAllowedError(
      name,
      `unknown tool "${name}": no tool catalog is configured (VIGIL_TOOLS)`,
    );
  const reference = lookUp(catalog, name);
  if (!reference) {
    throw new ToolNotAllowedError(
      name,
      `unknown tool "${name}": the tool catalog has no MCP server or HTTP tool of that name (name a server, server.tool, or an HTTP tool)`,
    );
  }
  const allow = catalog.tenants[tenantId]?.allow ?? [];
  const allowed =
    allow.includes(name) || (reference.kind === 'server-tool' && allow.includes(reference.server));
  if (!allowed) throw new ToolNotAllowedError(name, `tool "${name}" is not allowed for tenant "${tenantId}"`);
  return reference;
}

function lookUp(catalog: ToolCatalog, name: string): CatalogReference | undefined {
  if (Object.hasOwn(catalog.httpTools, name)) return { kind: 'http', tool: name };
  if (Object.hasOwn(catalog.mcpServers, name)) return { kind: 'server', server: name };
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  const server = name.slice(0, dot);
  const tool = name.slice(dot + 1);
  if (!tool || !Object.hasOwn(catalog.mcpServers, server)) return undefined;
  return { kind: 'server-tool', server, tool };
}
