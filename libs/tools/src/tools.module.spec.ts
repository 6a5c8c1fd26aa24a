import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, sectionProviders, SECTION_TOKENS } from '@vigil/config';
import { CatalogToolGateway } from './catalog-tool-gateway';
import { TOOL_GATEWAY, ToolGateway, ToolNotAllowedError } from './tool-gateway';
import { ToolsModule } from './tools.module';

@Global()
@Module({ providers: sectionProviders(loadConfig({})), exports: Object.values(SECTION_TOKENS) })
class ConfigOnly {}

@Module({ imports: [ConfigOnly, ToolsModule] })
class App {}

describe('ToolsModule', () => {
  it('provides an empty gateway without VIGIL_TOOLS: every tool name is refused, and shutdown closes it', async () => {
    const app = await NestFactory.createApplicationContext(App, { logger: false });
    const gateway = app.get<ToolGateway>(TOOL_GATEWAY);
    expect(gateway).toBeInstanceOf(CatalogToolGateway);
    await expect(gateway.validate('local', [])).resolves.toBeUndefined();
    const refusal = gateway.validate('local', ['files']);
    await expect(refusal).rejects.toBeInstanceOf(ToolNotAllowedError);
    await expect(refusal).rejects.toThrow('no tool catalog is configured (VIGIL_TOOLS)');
    expect(gateway.conversationDefaults('local')).toBeUndefined();
    const close = jest.spyOn(gateway, 'close');
    await app.close();
    expect(close).toHaveBeenCalledTimes(1);
  });
});
