/**
 * The operator's tool catalog (VIGIL_TOOLS), as parsed and validated at boot. Values keep their
 * `${VAR}` placeholders: the environment is read when a server is spawned or a tool is called, so
 * no secret sits in an object that someone might log (docs/missions.md, "Tools from outside").
 */

/** Per tool of an MCP server: how a write of it is found again after an unknown outcome. */
export interface McpWriteEntry {
  /** A read tool of the same server; `arguments` may hold `{{idempotencyKey}}` and `{{argument}}`. */
  lookup?: { tool: string; arguments: Record<string, unknown>; found: string };
  /** Only these arguments make the write's logical step (else all of them). */
  keyArguments?: string[];
  /** The argument that carries the idempotency key to the server (set by Vigil on each call). */
  idempotencyArgument?: string;
}

interface McpServerCommon {
  writes: Record<string, McpWriteEntry>;
  timeoutMs?: number;
  /**
   * The server holds state between calls that its restart loses (a browser's open pages and
   * logins): after one, the next prompt says so (docs/missions.md, "Stateful tool servers").
   */
  stateful?: true;
  /**
   * Tools of the server run as reads whatever their hints say: never journalled, repeated when
   * asked (a browser's navigation, which a restarted browser must be able to make again).
   */
  reads?: string[];
}

export interface StdioServerEntry extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface StreamableHttpServerEntry extends McpServerCommon {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerEntry = StdioServerEntry | StreamableHttpServerEntry;

export const HTTP_TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpToolMethod = (typeof HTTP_TOOL_METHODS)[number];

export interface HttpToolEntry {
  description: string;
  method: HttpToolMethod;
  /** May hold `{{argument}}` (filled URL-encoded) and `${VAR}`. */
  url: string;
  /** JSON Schema (type object) of the arguments. */
  input: Record<string, unknown>;
  headers: Record<string, string>;
  write: boolean;
  idempotencyHeader?: string;
  lookup?: { method: HttpToolMethod; url: string; found: string };
  keyArguments?: string[];
  timeoutMs?: number;
}

export interface CatalogConversationDefaults {
  tools: string[];
  exitCriteria?: { check: string; expected?: unknown; args?: Record<string, unknown> }[];
  budgetUsd?: number;
  evidence?: 'findings_only';
  agent?: Record<string, unknown>;
}

export interface TenantToolsEntry {
  /** Server names (all their tools), `server.tool`, or HTTP tool names. */
  allow: string[];
  conversationDefaults?: CatalogConversationDefaults;
  /** How long this tenant's finished tasks stay whole in Redis (TASK_RETENTION_MS and FAILED_TASK_RETENTION_MS otherwise). */
  retention?: TenantRetention;
  /** What the tenant's model calls (tasks, router, tools loop) may spend in one UTC day, USD. */
  dailyBudgetUsd?: number;
  /** At most this many of the tenant's tasks hold a slice at once, across every Worker. */
  maxRunning?: number;
  /**
   * The tenant's share of the running places while other tenants wait for one (default 1): a
   * tenant of weight 2 holds up to twice the places of a tenant of weight 1 (docs/operations.md,
   * "Tenant limits"). A whole number from 1 to 1000.
   */
  weight?: number;
}

export interface TenantRetention {
  /** Completed and cancelled tasks. */
  completedMs?: number;
  /** Failed tasks. */
  failedMs?: number;
}

export interface ToolCatalog {
  /** The file it was read from (for messages). */
  path: string;
  mcpServers: Record<string, McpServerEntry>;
  httpTools: Record<string, HttpToolEntry>;
  tenants: Record<string, TenantToolsEntry>;
  /** Every `${VAR}` the catalog references; all were set at boot. */
  variables: string[];
}

/** A tenant's limits from the catalog (docs/operations.md, "Tenant limits"); none for a tenant not in it. */
export function tenantLimitsOf(
  catalog: ToolCatalog | undefined,
  tenantId: string,
): Pick<TenantToolsEntry, 'dailyBudgetUsd' | 'maxRunning' | 'weight'> {
  const tenant = catalog && Object.hasOwn(catalog.tenants, tenantId) ? catalog.tenants[tenantId] : undefined;
  return {
    ...(tenant?.dailyBudgetUsd !== undefined ? { dailyBudgetUsd: tenant.dailyBudgetUsd } : {}),
    ...(tenant?.maxRunning !== undefined ? { maxRunning: tenant.maxRunning } : {}),
    ...(tenant?.weight !== undefined ? { weight: tenant.weight } : {}),
  };
}
