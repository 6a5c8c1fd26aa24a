import type { OnApplicationShutdown } from '@nestjs/common';
import type { ToolCatalog } from '@vigil/config';
import { registerSecretValues } from '@vigil/platform';
import { HttpTool } from './http/http-tool';
import { McpServerConnection } from './mcp/mcp-server-connection';
import { McpTool } from './mcp/mcp-tool';
import { Env, variableValues } from './common/catalog-variables';
import { CatalogReference, referenceTo } from './tool-references';
import {
  ConversationDefaults,
  ExternalTool,
  ToolGateway,
  ToolNotAllowedError,
  ToolServerUnavailableError,
} from './tool-gateway';

export interface ToolGatewayOptions {
  toolCallTimeoutMs: number;
  allowPrivate: boolean;
  /** Where `${VAR}` values come from at use (default process.env). */
  env?: Env;
}

/**
 * The ToolGateway over the operator's catalog (docs/missions.md, "Tools from outside"). Every
 * name a mission asks for is resolved against the catalog and the tenant's allow list, at creation
 * (validate) and again at call time (toolsFor); a server's tools come from its cached tools/list.
 * Without a catalog every name is refused.
 */
export class CatalogToolGateway implements ToolGateway, OnApplicationShutdown {
  private readonly servers = new Map<string, McpServerConnection>();
  private readonly httpTools = new Map<string, HttpTool>();
  /** One McpTool per listed definition: rebuilt when the server's list changes. */
  private readonly mcpTools = new WeakMap<object, McpTool>();

  constructor(
    private readonly catalog: ToolCatalog | undefined,
    private readonly options: ToolGatewayOptions,
  ) {
    const env = options.env ?? process.env;
    if (!catalog) return;
    registerSecretValues(variableValues(catalog.variables, env));
    for (const [name, entry] of Object.entries(catalog.mcpServers)) {
      this.servers.set(name, new McpServerConnection(name, entry, env, options.toolCallTimeoutMs));
    }
    for (const [name, entry] of Object.entries(catalog.httpTools)) {
      this.httpTools.set(
        name,
        new HttpTool(name, entry, {
          env,
          toolCallTimeoutMs: options.toolCallTimeoutMs,
          allowPrivate: options.allowPrivate,
        }),
      );
    }
  }

  /**
   * A server's name needs no listing (the catalog has it); `server.tool` is checked against the
   * server's tools/list, so the API process starts a stdio server only when a mission names one of
   * its tools.
   */
  async validate(tenantId: string, names: string[], signal?: AbortSignal): Promise<void> {
    const listed = names.filter((name) => this.reference(tenantId, name).kind !== 'server');
    await this.toolsFor(tenantId, listed, signal);
  }

  async toolsFor(tenantId: string, names: string[], signal?: AbortSignal): Promise<ExternalTool[]> {
    const tools = new Map<string, ExternalTool>();
    for (const name of names) {
      for (const tool of await this.resolve(tenantId, name, signal)) tools.set(tool.catalogName, tool);
    }
    const byModelName = new Map<string, string>();
    for (const tool of tools.values()) {
      const other = byModelName.get(tool.modelName);
      if (other) {
        throw new ToolNotAllowedError(
          tool.catalogName,
          `tools "${other}" and "${tool.catalogName}" would both be called "${tool.modelName}" by the model; ask for one of them`,
        );
      }
      byModelName.set(tool.modelName, tool.catalogName);
    }
    return [...tools.values()];
  }

  conversationDefaults(tenantId: string): ConversationDefaults | undefined {
    return this.catalog?.tenants[tenantId]?.conversationDefaults;
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.close()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  /** The MCP servers of the catalog, by name. */
  serverNames(): string[] {
    return [...this.servers.keys()];
  }

  /**
   * Starts a server if it is not running and answers the names of the tools it lists (`vigil
   * doctor` proves each server of the catalog this way). Fails as a call would: not started, not
   * listed within its timeout.
   */
  async serverToolNames(server: string, signal?: AbortSignal): Promise<string[]> {
    const connection = this.servers.get(server);
    if (!connection)
      throw new ToolServerUnavailableError(server, 'the catalog has no MCP server of that name');
    return (await connection.listTools(signal)).map((tool) => tool.name);
  }

  /** The running connection of a server (tests use it to kill the child). */
  connection(server: string): McpServerConnection | undefined {
    return this.servers.get(server);
  }

  private reference(tenantId: string, name: string): CatalogReference {
    return referenceTo(this.catalog, tenantId, name);
  }

  private async resolve(
    tenantId: string,
    name: string,
    signal: AbortSignal | undefined,
  ): Promise<ExternalTool[]> {
    const reference = this.reference(tenantId, name);
    if (reference.kind === 'http') return [this.httpTools.get(reference.tool)!];
    const tools = await this.listServer(reference.server, signal);
    if (reference.kind === 'server') return tools;
    const tool = tools.find((candidate) => candidate.catalogName === name);
    if (!tool) {
      const known = tools
        .map((candidate) => candidate.catalogName.slice(reference.server.length + 1))
        .join(', ');
      throw new ToolNotAllowedError(
        name,
        `MCP server "${reference.server}" has no tool "${reference.tool}" (it has: ${known || 'none'})`,
      );
    }
    return [tool];
  }

  private async listServer(server: string, signal: AbortSignal | undefined): Promise<McpTool[]> {
    const connection = this.servers.get(server)!;
    let definitions;
    try {
      definitions = await connection.listTools(signal);
    } catch (error) {
      throw new ToolServerUnavailableError(server, (error as Error).message);
    }
    const writes = this.catalog!.mcpServers[server].writes;
    return definitions.map((definition) => {
      let tool = this.mcpTools.get(definition);
      if (!tool) {
        tool = new McpTool(connection, definition, writes[definition.name], this.options.toolCallTimeoutMs);
        this.mcpTools.set(definition, tool);
      }
      return tool;
    });
  }
}
