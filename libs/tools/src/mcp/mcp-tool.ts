import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpWriteEntry } from '@vigil/config';
import { argumentCheck, ArgumentCheck } from '../common/argument-validator';
import { boundText } from '../common/bounded-text';
import { CallDeadline } from '../common/call-deadline';
import { modelNameOf } from '../common/model-name';
import { stepKeyOf } from '../common/step-key';
import { fillArguments } from '../common/templates';
import {
  ExternalTool,
  ToolCallError,
  ToolCallOptions,
  ToolCallOutput,
  ToolInputSchema,
} from '../tool-gateway';
import { withoutBinaries } from './mcp-binaries';
import { mcpLookupFound } from './mcp-lookup-found';
import { mcpResultText } from './mcp-result-text';
import type { McpServerConnection } from './mcp-server-connection';

/** The `_meta` key that carries a write's idempotency key to an MCP server. */
export const IDEMPOTENCY_META_KEY = 'vigil/idempotencyKey';

/** Trace context in `_meta`, as OpenTelemetry's MCP conventions carry it (docs/observability.md). */
function metaOf(options: ToolCallOptions, idempotent: boolean): Record<string, string> | undefined {
  const meta: Record<string, string> = {};
  if (idempotent && options.idempotencyKey) meta[IDEMPOTENCY_META_KEY] = options.idempotencyKey;
  if (options.traceparent) meta.traceparent = options.traceparent;
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** A server's description, bounded: it goes into every prompt that offers the tool. */
const DESCRIPTION_LIMIT = 1_000;

/**
 * One tool of an MCP server as Vigil offers it (docs/missions.md, "Tools from outside"): a read
 * only when the server marks it `readOnlyHint`, arguments checked against its input schema before
 * the call, the idempotency key in `_meta` (and in the argument the catalog names) of a write.
 */
export class McpTool implements ExternalTool {
  readonly catalogName: string;
  readonly modelName: string;
  readonly server: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  readonly effect: 'read' | 'write';
  readonly idempotent: boolean;
  readonly hasLookup: boolean;
  readonly timeoutMs?: number;
  readonly statefulServer?: ExternalTool['statefulServer'];
  /** Present only when the catalog gives this write a lookup. */
  readonly lookup?: ExternalTool['lookup'];
  private readonly checkArguments: ArgumentCheck;

  constructor(
    private readonly connection: McpServerConnection,
    private readonly definition: Tool,
    private readonly write: McpWriteEntry | undefined,
    private readonly defaultTimeoutMs: number,
  ) {
    this.server = connection.name;
    this.catalogName = `${connection.name}.${definition.name}`;
    this.modelName = modelNameOf(connection.name, definition.name);
    this.description = boundText(
      definition.description ?? definition.title ?? definition.name,
      DESCRIPTION_LIMIT,
    );
    this.inputSchema = definition.inputSchema as ToolInputSchema;
    this.effect =
      definition.annotations?.readOnlyHint === true || connection.runsAsRead(definition.name)
        ? 'read'
        : 'write';
    if (connection.stateful)
      this.statefulServer = { name: connection.name, session: () => connection.session };
    this.idempotent = definition.annotations?.idempotentHint === true;
    this.hasLookup = write?.lookup !== undefined;
    this.timeoutMs = connection.timeoutMs === defaultTimeoutMs ? undefined : connection.timeoutMs;
    this.checkArguments = argumentCheck(this.catalogName, this.inputSchema).check;
    const lookup = write?.lookup;
    if (lookup) this.lookup = (args, options) => this.runLookup(lookup, args, options);
  }

  stepKey(args: Record<string, unknown>): string {
    const { idempotencyArgument } = this.write ?? {};
    const own = idempotencyArgument ? withoutKey(args, idempotencyArgument) : args;
    return stepKeyOf(this.catalogName, own, this.write?.keyArguments);
  }

  async call(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolCallOutput> {
    const sent = this.withIdempotencyArgument(args, options.idempotencyKey);
    this.checkArguments(sent);
    const meta = metaOf(options, true);
    const { result, session } = await this.connection.callToolInSession(this.definition.name, sent, {
      deadline: new CallDeadline(this.connection.timeoutMs, options.signal),
      ...(meta ? { meta } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    if (result.isError) throw new ToolCallError(`${this.catalogName} failed: ${mcpResultText(result)}`);
    const { result: recorded, binaries } = await withoutBinaries(result);
    const text = mcpResultText(recorded);
    return {
      text,
      raw: recorded,
      ...(binaries.length ? { binaries } : {}),
      ...(this.statefulServer ? { session } : {}),
    };
  }

  private async runLookup(
    lookup: NonNullable<McpWriteEntry['lookup']>,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<unknown> {
    const where = `${this.catalogName} lookup`;
    if (!options.idempotencyKey) throw new ToolCallError(`${where}: needs the write's idempotency key`);
    const values = { ...args, idempotencyKey: options.idempotencyKey };
    const lookupArgs = fillArguments(lookup.arguments, values, where) as Record<string, unknown>;
    const meta = metaOf(options, false);
    const result = await this.connection.callTool(lookup.tool, lookupArgs, {
      deadline: new CallDeadline(this.connection.timeoutMs, options.signal),
      ...(meta ? { meta } : {}),
    });
    if (result.isError) throw new ToolCallError(`${where} (${lookup.tool}) failed: ${mcpResultText(result)}`);
    return mcpLookupFound(result, lookup.found);
  }

  private withIdempotencyArgument(
    args: Record<string, unknown>,
    key: string | undefined,
  ): Record<string, unknown> {
    const name = this.write?.idempotencyArgument;
    return name && key ? { ...args, [name]: key } : args;
  }
}

function withoutKey(args: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _dropped, ...rest } = args;
  return rest;
}
