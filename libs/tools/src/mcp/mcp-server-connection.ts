import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { mcpSdk } from './mcp-sdk';
import { traceHeaderFetch } from './trace-header-fetch';
import type { McpServerEntry } from '@vigil/config';
import { CallDeadline } from '../common/call-deadline';
import { Env, fillRecord, fillVariables } from '../common/catalog-variables';
import { ToolCallError } from '../tool-gateway';

/** What `Client.connect` takes: a stdio or streamable HTTP transport. */
type Transport = Parameters<Client['connect']>[0];
import { StderrTail } from './stderr-tail';

/** Restart delays after a server died or failed to start: 100 ms, doubling, at most 5 s. */
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 5_000;

/** A call's result, and the server session that answered it. */
export interface McpCallAnswer {
  result: CallToolResult;
  /** Which connection to the server answered (a new one after every restart or reconnect). */
  session: string;
}

export interface McpCallOptions {
  deadline: CallDeadline;
  meta?: Record<string, unknown>;
  onProgress?: () => void;
}

/**
 * One MCP server of the catalog, as this process reaches it (docs/missions.md, "Tools from
 * outside"): a stdio server is spawned on first use and kept warm; when it dies its pending calls
 * fail at once (the SDK rejects them when the pipe closes) and the next use starts it again after
 * a bounded backoff. `tools/list` is cached until the server says `notifications/tools/list_changed`
 * or is restarted. Every request runs under the caller's deadline and signal.
 */
export class McpServerConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private tools: Tool[] | undefined;
  private listing: Promise<Tool[]> | undefined;
  /** Deaths and failed starts since the last answered request: drives the backoff. */
  private failures = 0;
  private lastFailureAt = 0;
  private closed = false;
  private readonly stderr = new StderrTail();
  /** Each connected client's session id: state a stateful server holds lives as long as it. */
  private readonly sessions = new WeakMap<Client, string>();

  constructor(
    readonly name: string,
    private readonly entry: McpServerEntry,
    private readonly env: Env,
    private readonly defaultTimeoutMs: number,
  ) {}

  get timeoutMs(): number {
    return this.entry.timeoutMs ?? this.defaultTimeoutMs;
  }

  /** The catalog says the server holds state a restart loses (docs/missions.md, "Stateful tool servers"). */
  get stateful(): boolean {
    return this.entry.stateful === true;
  }

  /** The catalog runs this tool of the server as a read, whatever its hints say. */
  runsAsRead(tool: string): boolean {
    return this.entry.reads?.includes(tool) ?? false;
  }

  /**
   * The session of the client connected now, null while none is: a new id for every spawn of a
   * stdio server and every new connection to an HTTP one, so a recorded id that differs from it
   * means whatever the server held for the task is gone.
   */
  get session(): string | null {
    return this.client ? (this.sessions.get(this.client) ?? null) : null;
  }

  /** The server's tools (cached; listed again after list_changed or a restart). */
  async listTools(callerSignal?: AbortSignal): Promise<Tool[]> {
    if (this.tools) return this.tools;
    const deadline = new CallDeadline(this.timeoutMs, callerSignal);
    this.listing ??= this.fetchTools(deadline).finally(() => (this.listing = undefined));
    try {
      return await deadline.race(this.listing);
    } catch (error) {
      this.dropHttpClientAfter(error, deadline);
      throw deadline.failure(`MCP server "${this.name}" did not list its tools`, error);
    } finally {
      deadline.dispose();
    }
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    return (await this.callToolInSession(tool, args, options)).result;
  }

  /** A call, with the session that answered it. */
  async callToolInSession(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpCallAnswer> {
    const { deadline } = options;
    let sent = false;
    try {
      const client = await deadline.race(this.connected());
      const session = this.sessions.get(client) ?? '';
      sent = true;
      const result = await client.callTool(
        { name: tool, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
        mcpSdk().CallToolResultSchema,
        {
          signal: deadline.signal,
          timeout: deadline.timeoutMs,
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        },
      );
      this.failures = 0;
      return { result: result as CallToolResult, session };
    } catch (error) {
      this.dropHttpClientAfter(error, deadline);
      const failure = deadline.failure(`${this.name}.${tool}`, this.withStderr(error));
      // A server that never got the call (it would not start or connect) did nothing.
      throw sent || !failure.outcomeUnknown ? failure : new ToolCallError(failure.message);
    } finally {
      deadline.dispose();
    }
  }

  /** Stops a spawned server; later uses fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.tools = undefined;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** The child's pid while a stdio server runs (tests kill it to prove the restart). */
  get pid(): number | null {
    const transport = this.client?.transport;
    return transport instanceof mcpSdk().StdioClientTransport ? transport.pid : null;
  }

  private async fetchTools(deadline: CallDeadline): Promise<Tool[]> {
    const client = await deadline.race(this.connected());
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, {
        signal: deadline.signal,
        timeout: deadline.timeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    this.failures = 0;
    // A list_changed (or a restart) that came while listing makes this answer stale: not cached.
    if (this.client === client) this.tools = tools;
    return tools;
  }

  private connected(): Promise<Client> {
    if (this.closed)
      return Promise.reject(new ToolCallError(`MCP server "${this.name}": the tool gateway is closed`));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const wait = this.backoffMs();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { Client, ToolListChangedNotificationSchema } = mcpSdk();
    const client = new Client({ name: 'vigil', version: '0.1.0' }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) this.tools = undefined;
    });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.tools = undefined;
      this.noteFailure();
    };
    try {
      await client.connect(this.transport(), { timeout: this.timeoutMs });
    } catch (error) {
      this.noteFailure();
      await client.close().catch(() => undefined);
      throw this.withStderr(error);
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new ToolCallError(`MCP server "${this.name}": the tool gateway is closed`);
    }
    this.sessions.set(client, randomUUID());
    this.client = client;
    this.tools = undefined;
    return client;
  }

  private transport(): Transport {
    const where = `mcpServers.${this.name}`;
    const { StdioClientTransport, StreamableHTTPClientTransport } = mcpSdk();
    if (this.entry.transport === 'http') {
      return new StreamableHTTPClientTransport(
        new URL(fillVariables(this.entry.url, this.env, `${where}.url`)),
        {
          requestInit: { headers: fillRecord(this.entry.headers, this.env, `${where}.headers`) },
          fetch: traceHeaderFetch(),
        },
      );
    }
    // The child gets the SDK's minimal environment (PATH, HOME, …) plus the catalog's `env`, never
    // this process's own secrets (model keys, Redis URL).
    const transport = new StdioClientTransport({
      command: fillVariables(this.entry.command, this.env, `${where}.command`),
      args: this.entry.args.map((arg, i) => fillVariables(arg, this.env, `${where}.args[${i}]`)),
      env: fillRecord(this.entry.env, this.env, `${where}.env`),
      ...(this.entry.cwd ? { cwd: fillVariables(this.entry.cwd, this.env, `${where}.cwd`) } : {}),
      stderr: 'pipe',
    });
    this.stderr.attach(transport.stderr);
    return transport;
  }

  /**
   * A streamable HTTP server has no process to watch: a transport failure (the server restarted
   * and forgot the session, a connection refused) drops the client, so the next use connects
   * afresh. A JSON-RPC error answer (McpError), a deadline or an abort keeps it.
   */
  private dropHttpClientAfter(error: unknown, deadline: CallDeadline): void {
    if (this.entry.transport !== 'http' || error instanceof mcpSdk().McpError || deadline.signal.aborted)
      return;
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.tools = undefined;
    this.noteFailure();
    void client.close().catch(() => undefined);
  }

  private backoffMs(): number {
    if (this.failures === 0) return 0;
    const delay = Math.min(BACKOFF_BASE_MS * 2 ** (this.failures - 1), BACKOFF_MAX_MS);
    return Math.max(0, delay - (Date.now() - this.lastFailureAt));
  }

  private noteFailure(): void {
    this.failures += 1;
    this.lastFailureAt = Date.now();
  }

  /** A server that died says why on stderr: its last lines go with the error. */
  private withStderr(error: unknown): unknown {
    const tail = this.stderr.text();
    if (!tail || error instanceof ToolCallError || !(error instanceof Error)) return error;
    if (!/closed|exit|spawn|ENOENT|EPIPE/i.test(error.message)) return error;
    return new Error(`${error.message} (server stderr: ${tail})`);
  }
}
