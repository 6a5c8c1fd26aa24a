import type { ToolCallOptions, ToolCallOutput, ToolGateway } from './tool-gateway';
import { ToolNotAllowedError } from './tool-gateway';

/**
 * Calls one read tool by its catalog name (an HTTP tool or `server.tool`) through any gateway, the
 * tenant's allow list applied: what the Watcher's `tool_result` check uses (docs/missions.md,
 * "Tools from outside"). A server name or a write is refused, never called.
 */
export async function callReadTool(
  gateway: ToolGateway,
  tenantId: string,
  catalogName: string,
  args: Record<string, unknown>,
  options: Pick<ToolCallOptions, 'signal' | 'onProgress'>,
): Promise<ToolCallOutput> {
  const tools = await gateway.toolsFor(tenantId, [catalogName], options.signal);
  const tool = tools.find((candidate) => candidate.catalogName === catalogName);
  if (!tool) {
    throw new ToolNotAllowedError(
      catalogName,
      `"${catalogName}" names a server; a check names one of its tools (${catalogName}.<tool>)`,
    );
  }
  if (tool.effect !== 'read') {
    throw new ToolNotAllowedError(
      catalogName,
      `"${catalogName}" is a write; a check may only call read tools`,
    );
  }
  return tool.call(args, {
    signal: options.signal,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}
