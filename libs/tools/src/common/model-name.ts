import { createHash } from 'node:crypto';

/**
 * The name a model API sees (`[A-Za-z0-9_-]{1,64}`): `server__tool` for an MCP tool. A name that
 * needs rewriting (other characters, or longer than 64) gets a short hash of the catalog name so
 * two different tools never share a model name (docs/missions.md, "Tools from outside").
 */
export function modelNameOf(server: string | null, tool: string): string {
  const wanted = server === null ? tool : `${server}__${tool}`;
  if (/^[A-Za-z0-9_-]{1,64}$/.test(wanted)) return wanted;
  const catalogName = server === null ? tool : `${server}.${tool}`;
  const digest = createHash('sha256').update(catalogName).digest('hex').slice(0, 8);
  const sanitised = wanted.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 55);
  return `${sanitised}_${digest}`;
}
