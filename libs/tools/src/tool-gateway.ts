/**
 * The contract between the tools from outside (MCP servers and HTTP endpoints named in the
 * operator's catalog, VIGIL_TOOLS) and the rest of Vigil: the mission kind offers them to the
 * model, the runtime calls them, the Watcher runs `tool_result` checks through them.
 * See docs/missions.md, "Tools from outside".
 */

import type { ToolBinary } from './binary/tool-binary';

/** JSON Schema of a tool's arguments, as the catalog or the MCP server gives it. */
export type ToolInputSchema = Record<string, unknown>;

/** One tool of the catalog, ready to call. */
export interface ExternalTool {
  /** As a mission's `tools` names it: `files.write_file` (MCP) or `create_ticket` (HTTP). */
  catalogName: string;
  /** As models see it: `files__write_file`, `create_ticket` (`[A-Za-z0-9_-]{1,64}`). */
  modelName: string;
  /** The MCP server's name, or null for an HTTP tool. */
  server: string | null;
  description: string;
  inputSchema: ToolInputSchema;
  /** A read never changes anything (`readOnlyHint`, or an HTTP tool without `write: true`). */
  effect: 'read' | 'write';
  /** The server promises a repeat has no further effect (`idempotentHint`): replay may repeat it. */
  idempotent: boolean;
  /** Whether the catalog gives a lookup to find a write's result after an unknown outcome. */
  hasLookup: boolean;
  /** This tool's call deadline when the catalog sets one (else TOOL_CALL_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * Set for a tool of a server the catalog marks `stateful` (docs/missions.md, "Stateful tool
   * servers"): the session this process holds with it now (null: none yet), which each call's
   * output names too.
   */
  statefulServer?: { name: string; session(): string | null };
  /**
   * The logical step a call performs: a stable key of (tool, canonical arguments), or of the
   * catalog's `keyArguments` only. Same arguments, same key, whatever their order.
   */
  stepKey(args: Record<string, unknown>): string;
  /** Makes the call. Throws ToolCallError for a failed call (transport, isError, HTTP status, schema). */
  call(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolCallOutput>;
  /**
   * For a write with a lookup: what the external system holds for this write's idempotency key —
   * the write's result when it happened, null when it did not. Throws when the lookup itself fails.
   */
  lookup?(args: Record<string, unknown>, options: ToolCallOptions): Promise<unknown>;
}

export interface ToolCallOptions {
  /** Aborts the call: a stop, a deadline, a drain past its bound. */
  signal: AbortSignal;
  /** Sent with writes (HTTP header `idempotencyHeader`; MCP `_meta` and any `keyArguments` the catalog names). */
  idempotencyKey?: string;
  /** The server reported progress (MCP `notifications/progress`): counts as a heartbeat. */
  onProgress?: () => void;
  /**
   * W3C `traceparent` of the call's span when traces are on: an HTTP tool's header, an MCP
   * call's `_meta.traceparent` (and header over streamable HTTP) — docs/observability.md.
   */
  traceparent?: string;
}

export interface ToolCallOutput {
  /** What the model is shown: text, bounded in size (large outputs saved and referenced). */
  text: string;
  /**
   * The raw result: MCP `CallToolResult`, or the HTTP response's JSON body. `tool_result` points into
   * it. Binary parts (images, audio, blobs, a binary HTTP body) are `{artifact: {...}}` references
   * here, their bytes in `binaries`.
   */
  raw: unknown;
  /** The bytes of the binary parts `raw` refers to, for the Worker to keep as artifacts. */
  binaries?: ToolBinary[];
  /** The session of a stateful server that answered (see ExternalTool.statefulServer). */
  session?: string;
}

/** A call that failed; the message goes back to the model as a tool error, never a secret in it. */
export class ToolCallError extends Error {
  /**
   * The call may have reached the tool before it failed (a connection lost mid-call, a deadline, an
   * abort): a write's outcome is then unknown, not "not made" (docs/missions.md, "Writes never
   * repeated"). False for failures the tool answered (an HTTP status, `isError`) or that came before
   * anything was sent (bad arguments, a refused target).
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options: { outcomeUnknown?: boolean } = {}) {
    super(message);
    this.name = 'ToolCallError';
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

/** Whether a failed call may have taken effect (see ToolCallError.outcomeUnknown). */
export function isOutcomeUnknown(error: unknown): boolean {
  return error instanceof Error && (error as { outcomeUnknown?: unknown }).outcomeUnknown === true;
}

/** A tool name a tenant asked for that the catalog does not have, or the tenant may not use. */
export class ToolNotAllowedError extends Error {
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolNotAllowedError';
  }
}

/** What the catalog says a conversation's missions start with (tenants.<id>.conversationDefaults). */
export interface ConversationDefaults {
  tools: string[];
  exitCriteria?: { check: string; expected?: unknown; args?: Record<string, unknown> }[];
  budgetUsd?: number;
  evidence?: 'findings_only';
  agent?: Record<string, unknown>;
}

/** The tools from outside, as every app sees them (Nest token TOOL_GATEWAY). */
export interface ToolGateway {
  /**
   * Checks a mission's `tools` list against the catalog and the tenant's allow list; throws
   * ToolNotAllowedError naming the first unknown or forbidden entry. Names a server's tool
   * (`files.write_file`) are checked against the server's tools/list when it can be listed.
   */
  validate(tenantId: string, names: string[], signal?: AbortSignal): Promise<void>;
  /** The tools a mission's `tools` list names, allow list checked again (call time). */
  toolsFor(tenantId: string, names: string[], signal?: AbortSignal): Promise<ExternalTool[]>;
  conversationDefaults(tenantId: string): ConversationDefaults | undefined;
  /** Stops the stdio servers this process spawned. */
  close(): Promise<void>;
}

export const TOOL_GATEWAY = Symbol('TOOL_GATEWAY');

/**
 * An MCP server that could not be reached or did not list its tools in time, while checking or
 * resolving a mission's tools: the names may well be right. A ToolCallError (a call-time failure,
 * worth retrying), not a ToolNotAllowedError (a request to correct).
 */
export class ToolServerUnavailableError extends ToolCallError {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(`MCP server "${server}" is unavailable: ${message}`);
    this.name = 'ToolServerUnavailableError';
  }
}
