import { readFileSync } from 'node:fs';
import { ConfigError, Env, readOptional } from './env-parsers';
import type {
  CatalogConversationDefaults,
  TenantRetention,
  TenantToolsEntry,
  ToolCatalog,
} from './tool-catalog';
import { readHttpTool, readMcpServer } from './tool-catalog-entries';
import { CatalogReader } from './tool-catalog-reader';

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reads and validates the catalog VIGIL_TOOLS names, at boot inside loadConfig: api, worker,
 * watcher and notifier all stop at start on a bad entry (docs/missions.md, "Tools from
 * outside"). Undefined when no catalog is named.
 */
export function loadToolCatalog(env: Env): ToolCatalog | undefined {
  const path = readOptional(env, 'VIGIL_TOOLS');
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`VIGIL_TOOLS (${path}): cannot read the file: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`VIGIL_TOOLS (${path}): not valid JSON: ${(error as Error).message}`);
  }
  return parseToolCatalog(json, path, env);
}

/** Validates a catalog's JSON; every error names the file and the entry, never a variable's value. */
export function parseToolCatalog(json: unknown, path: string, env: Env): ToolCatalog {
  const reader = new CatalogReader(path, env);
  const top = reader.object(json, 'catalog', ['mcpServers', 'httpTools', 'tenants']);
  const mcpServers = Object.fromEntries(
    Object.entries(reader.map(top.mcpServers, 'mcpServers')).map(([name, value]) => [
      name,
      readMcpServer(reader, name, value),
    ]),
  );
  const httpTools = Object.fromEntries(
    Object.entries(reader.map(top.httpTools, 'httpTools')).map(([name, value]) => {
      if (Object.hasOwn(mcpServers, name))
        reader.fail(`httpTools.${name}`, 'an MCP server has the same name');
      const server = Object.keys(mcpServers).find((candidate) => name.startsWith(`${candidate}__`));
      if (server !== undefined)
        reader.fail(
          `httpTools.${name}`,
          `the name could clash with a tool of MCP server "${server}" (${server}__<tool>)`,
        );
      return [name, readHttpTool(reader, name, value)];
    }),
  );
  const catalog: ToolCatalog = { path, mcpServers, httpTools, tenants: {}, variables: [] };
  for (const [tenantId, value] of Object.entries(reader.map(top.tenants, 'tenants'))) {
    catalog.tenants[tenantId] = readTenant(reader, catalog, tenantId, value);
  }
  catalog.variables = [...reader.variables].sort();
  return catalog;
}

function readTenant(
  reader: CatalogReader,
  catalog: ToolCatalog,
  tenantId: string,
  value: unknown,
): TenantToolsEntry {
  const entry = `tenants.${tenantId}`;
  if (!TENANT_ID.test(tenantId)) reader.fail(entry, 'a tenant id may use only A-Z a-z 0-9 _ - (1 to 64)');
  const json = reader.object(value, entry, [
    'allow',
    'conversationDefaults',
    'retention',
    ...TENANT_LIMIT_FIELDS,
  ]);
  // A tenant named only for its retention or its limits may use no tool from outside.
  const onlySettings =
    json.retention !== undefined || TENANT_LIMIT_FIELDS.some((field) => json[field] !== undefined);
  const allow = json.allow === undefined && onlySettings ? [] : reader.strings(json, 'allow', entry);
  if (!allow) reader.fail(entry, '"allow" must be an array of strings');
  for (const name of allow) {
    if (!inCatalog(catalog, name))
      reader.fail(
        `${entry}.allow`,
        `"${name}" is not in the catalog (name an MCP server, server.tool, or an HTTP tool)`,
      );
  }
  const tenant: TenantToolsEntry = { allow, ...readTenantLimits(reader, entry, json) };
  if (json.retention !== undefined)
    tenant.retention = readRetention(reader, `${entry}.retention`, json.retention);
  if (json.conversationDefaults !== undefined) {
    tenant.conversationDefaults = readDefaults(
      reader,
      `${entry}.conversationDefaults`,
      json.conversationDefaults,
      allow,
    );
  }
  return tenant;
}

const TENANT_LIMIT_FIELDS = ['dailyBudgetUsd', 'maxRunning', 'weight'] as const;

function isWholeIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * `dailyBudgetUsd` (positive USD), `maxRunning` (a whole number from 1) and `weight` (the fair
 * share, a whole number from 1 to 1000), each optional.
 */
function readTenantLimits(
  reader: CatalogReader,
  entry: string,
  json: Record<string, unknown>,
): Pick<TenantToolsEntry, 'dailyBudgetUsd' | 'maxRunning' | 'weight'> {
  const { dailyBudgetUsd, maxRunning, weight } = json;
  if (dailyBudgetUsd !== undefined && (typeof dailyBudgetUsd !== 'number' || !(dailyBudgetUsd > 0)))
    reader.fail(`${entry}.dailyBudgetUsd`, 'must be a positive number of USD');
  if (maxRunning !== undefined && !isWholeIn(maxRunning, 1, 100_000))
    reader.fail(`${entry}.maxRunning`, 'must be a whole number from 1 to 100000');
  if (weight !== undefined && !isWholeIn(weight, 1, 1000))
    reader.fail(`${entry}.weight`, 'must be a whole number from 1 to 1000');
  return {
    ...(dailyBudgetUsd !== undefined ? { dailyBudgetUsd } : {}),
    ...(maxRunning !== undefined ? { maxRunning: maxRunning as number } : {}),
    ...(weight !== undefined ? { weight: weight as number } : {}),
  };
}

/** Up to ten years: a bigger number is a typo, and would overflow the retention index's scores. */
const MAX_RETENTION_MS = 10 * 365 * 86_400_000;

function readRetention(reader: CatalogReader, entry: string, value: unknown): TenantRetention {
  const json = reader.object(value, entry, ['completedMs', 'failedMs']);
  const retention: TenantRetention = {};
  for (const field of ['completedMs', 'failedMs'] as const) {
    const ms = json[field];
    if (ms === undefined) continue;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_RETENTION_MS)
      reader.fail(entry, `"${field}" must be a whole number of milliseconds from 0 to ${MAX_RETENTION_MS}`);
    retention[field] = ms;
  }
  return retention;
}

function readDefaults(
  reader: CatalogReader,
  entry: string,
  value: unknown,
  allow: string[],
): CatalogConversationDefaults {
  const json = reader.object(value, entry, ['tools', 'exitCriteria', 'budgetUsd', 'evidence', 'agent']);
  const tools = reader.strings(json, 'tools', entry);
  if (!tools) reader.fail(entry, '"tools" must be an array of strings');
  for (const name of tools) {
    const server = name.split('.')[0];
    if (!allow.includes(name) && !(name.includes('.') && allow.includes(server)))
      reader.fail(`${entry}.tools`, `"${name}" is not in this tenant's "allow" list`);
  }
  const defaults: CatalogConversationDefaults = { tools };
  if (json.exitCriteria !== undefined) {
    if (!Array.isArray(json.exitCriteria)) reader.fail(entry, '"exitCriteria" must be an array');
    defaults.exitCriteria = json.exitCriteria.map((criterion: unknown, i: number) => {
      const where = `${entry}.exitCriteria[${i}]`;
      const item = reader.object(criterion, where, ['check', 'expected', 'args']);
      return {
        check: reader.string(item, 'check', where),
        ...(item.expected !== undefined ? { expected: item.expected } : {}),
        ...(item.args !== undefined ? { args: reader.map(item.args, `${where}.args`) } : {}),
      };
    });
  }
  if (json.budgetUsd !== undefined) {
    if (typeof json.budgetUsd !== 'number' || !(json.budgetUsd > 0))
      reader.fail(entry, '"budgetUsd" must be a positive number');
    defaults.budgetUsd = json.budgetUsd;
  }
  if (json.evidence !== undefined) {
    if (json.evidence !== 'findings_only') reader.fail(entry, '"evidence" may only be "findings_only"');
    defaults.evidence = 'findings_only';
  }
  if (json.agent !== undefined) defaults.agent = reader.map(json.agent, `${entry}.agent`);
  return defaults;
}

function inCatalog(catalog: ToolCatalog, name: string): boolean {
  if (Object.hasOwn(catalog.httpTools, name) || Object.hasOwn(catalog.mcpServers, name)) return true;
  const dot = name.indexOf('.');
  return dot > 0 && dot < name.length - 1 && Object.hasOwn(catalog.mcpServers, name.slice(0, dot));
}
