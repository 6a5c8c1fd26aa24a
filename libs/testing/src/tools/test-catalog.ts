import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseToolCatalog } from '@vigil/config';
import { CatalogToolGateway } from '@vigil/tools';

type Env = Record<string, string | undefined>;

const REPO = resolve(__dirname, '../../../..');

/** The entry script of an MCP server published on npm (a devDependency), run with this node. */
export function npmServer(name: 'server-filesystem' | 'server-memory' | 'server-everything'): string {
  return join(REPO, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
}

/** The fake of our own (fake-mcp-server.mjs) for what the real servers will not do on demand. */
export const FAKE_SERVER = join(__dirname, 'fake-mcp-server.mjs');

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'vigil-tools-'));
}

/** A gateway over a catalog given as JSON, validated exactly as VIGIL_TOOLS is at boot. */
export function testGateway(
  json: unknown,
  options: { env?: Env; toolCallTimeoutMs?: number; allowPrivate?: boolean } = {},
): CatalogToolGateway {
  const env = options.env ?? process.env;
  return new CatalogToolGateway(parseToolCatalog(json, 'test-catalog.json', env), {
    toolCallTimeoutMs: options.toolCallTimeoutMs ?? 10_000,
    allowPrivate: options.allowPrivate ?? true,
    env,
  });
}
