import { loadConfig } from '@vigil/config';
import type { ToolGateway } from '@vigil/tools';
import { kindServices } from './kinds.module';

describe('the kind config', () => {
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'sk-ant-secret',
    GEMINI_API_KEY: '',
    API_KEYS: 'acme:api-secret',
    WEBHOOK_SECRET: 'webhook-secret-value',
    ADMIN_PASSWORD: 'admin-secret',
    METRICS_TOKEN: 'metrics-secret',
    META_API_BASE_URL: 'http://127.0.0.1:9/graph',
    META_ACCESS_TOKEN: 'meta-token',
  });
  const services = kindServices(config, {} as ToolGateway);

  it('holds what kinds read, and which models can run without their keys', () => {
    expect(services.config).toEqual({
      metaApiBaseUrl: 'http://127.0.0.1:9/graph',
      metaAccessToken: 'meta-token',
      toolsAllowPrivate: false,
      toolCallTimeoutMs: config.toolCallTimeoutMs,
      firstModel: 'opus',
      modelsWithKeys: ['opus'],
    });
  });

  it("never reaches Vigil's own secrets", () => {
    const seen = JSON.stringify(services.config);
    for (const secret of [
      'sk-ant-secret',
      'api-secret',
      'webhook-secret-value',
      'admin-secret',
      'metrics-secret',
    ])
      expect(seen).not.toContain(secret);
    // Nothing else is handed over beside the kind config and the tools.
    expect(Object.keys(services).sort()).toEqual(['config', 'tools']);
  });

  it('says a Gemini key is set without holding it', () => {
    const both = kindServices(
      loadConfig({ ANTHROPIC_API_KEY: 'sk-ant-secret', GEMINI_API_KEY: 'gemini-secret' }),
      {} as ToolGateway,
    );
    expect(both.config.modelsWithKeys).toEqual(['opus', 'gemini']);
    expect(JSON.stringify(both.config)).not.toMatch(/sk-ant-secret|gemini-secret/);
  });

  it('cannot be changed by a kind', () => {
    expect(Object.isFrozen(services.config)).toBe(true);
    expect(Object.isFrozen(services.config.modelsWithKeys)).toBe(true);
  });
});
