import { mkdtempSync, writeFileSync } from 'node:fs';
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

/** `catalog` written as a VIGIL_TOOLS file (in a fresh temp folder unless `dir` is given): its path. */
export function catalogFile(catalog: unknown, dir = tempDir()): string {
  const path = join(dir, 'vigil.tools.json');
  writeFileSync(path, JSON.stringify(catalog));
  return path;
}

/**
 * The HTTP tool `create_ticket` (`write`) or `list_tickets` of a tracker nobody serves
 * (127.0.0.1:9): for catalogs that the API validates and routes on but never calls.
 */
export function unservedTicketTool(write: boolean) {
  return {
    description: write ? 'Open a ticket.' : 'List tickets.',
    method: write ? 'POST' : 'GET',
    url: 'http://127.0.0.1:9/tickets',
    input: { type: 'object', properties: { title: { type: 'string' } } },
    ...(write ? { write: true } : {}),
  };
}

/** The HTTP tool `status_page` of a site nobody serves: offered to a mission, never called by its plan. */
export function unservedStatusPage() {
  return {
    description: 'Reads the status page.',
    method: 'GET',
    url: 'http://127.0.0.1:9/status',
    input: { type: 'object', properties: {} },
  };
}

/** The exit criterion that reads one ticket back through `list_tickets` (`unservedTicketTool(false)`). */
export const ONE_TICKET_LISTED = {
  check: 'tool_result',
  args: { tool: 'list_tickets', arguments: {}, pointer: '/total' },
  expected: 1,
};

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
