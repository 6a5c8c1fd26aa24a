import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/** The parts of the MCP SDK a connection uses. */
export interface McpSdk {
  Client: typeof ClientModule.Client;
  StdioClientTransport: typeof StdioModule.StdioClientTransport;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  CallToolResultSchema: typeof TypesModule.CallToolResultSchema;
  McpError: typeof TypesModule.McpError;
  ToolListChangedNotificationSchema: typeof TypesModule.ToolListChangedNotificationSchema;
}

let loaded: McpSdk | undefined;

/**
 * The MCP client loads when the first server connects, not when @vigil/tools is imported: with its
 * zod schemas it is about 320 modules and 0.2–0.4 s of CPU at the boot of every app, most of which
 * (the Watcher, the notifier, a Worker whose tasks use no MCP server) never connect one.
 */
export function mcpSdk(): McpSdk {
  /* eslint-disable @typescript-eslint/no-require-imports -- deferred load, see above */
  loaded ??= {
    ...(require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule),
    ...(require('@modelcontextprotocol/sdk/client/stdio.js') as typeof StdioModule),
    ...(require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof HttpModule),
    ...(require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return loaded;
}
