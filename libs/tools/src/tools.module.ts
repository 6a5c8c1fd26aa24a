import { Global, Module } from '@nestjs/common';
import { CLOCKS_CONFIG, ClockConfig, TOOLS_CONFIG, ToolsConfig } from '@vigil/config';
import { CatalogToolGateway } from './catalog-tool-gateway';
import { TOOL_GATEWAY } from './tool-gateway';

/**
 * The tools from outside for every app that imports it: TOOL_GATEWAY built from the catalog parsed
 * at boot (an empty one without VIGIL_TOOLS). The gateway stops the stdio servers it spawned on
 * application shutdown (docs/missions.md, "Tools from outside").
 */
@Global()
@Module({
  providers: [
    {
      provide: TOOL_GATEWAY,
      inject: [TOOLS_CONFIG, CLOCKS_CONFIG],
      useFactory: (tools: ToolsConfig, clocks: ClockConfig) =>
        new CatalogToolGateway(tools.toolCatalog, {
          toolCallTimeoutMs: clocks.toolCallTimeoutMs,
          allowPrivate: tools.toolsAllowPrivate,
        }),
    },
  ],
  exports: [TOOL_GATEWAY],
})
export class ToolsModule {}
