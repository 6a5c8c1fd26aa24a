import { loadConfig, sectionsOf } from '@vigil/config';
import { AnthropicProvider } from './anthropic.provider';
import { GeminiProvider } from './gemini.provider';
import { ModelProviders } from './model-providers';
import { ScriptedProvider, type ScriptedRun } from './scripted.provider';

const run: ScriptedRun = {
  plan: () => [],
  doneSteps: new Set(),
  options: {},
  claimTrigger: async () => false,
};

/** The providers of a config loaded from `env`, handed its sections as Nest hands them. */
function providersOf(env: Record<string, string>): ModelProviders {
  const { models, clocks } = sectionsOf(loadConfig(env));
  return new ModelProviders(models, clocks);
}

describe('ModelProviders', () => {
  it('runs every policy name on the scripted provider when no API key is set', () => {
    const providers = providersOf({});
    for (const model of ['opus', 'gemini']) {
      const provider = providers.create(model, run);
      expect(provider).toBeInstanceOf(ScriptedProvider);
      expect(provider).toMatchObject({ name: model, modelId: 'scripted' });
    }
  });

  it('uses Claude for opus and Gemini for gemini when their keys are set', () => {
    const providers = providersOf({
      ANTHROPIC_API_KEY: 'sk-ant-x',
      GEMINI_API_KEY: 'g-x',
      GEMINI_MODEL: 'gemini-test',
    });
    const opus = providers.create('opus', run);
    const gemini = providers.create('gemini', run);
    expect(opus).toBeInstanceOf(AnthropicProvider);
    expect(opus).toMatchObject({ name: 'opus', modelId: 'claude-opus-4-1' });
    expect(gemini).toBeInstanceOf(GeminiProvider);
    expect(gemini).toMatchObject({ name: 'gemini', modelId: 'gemini-test' });
    expect(providers.create('opus', run)).not.toBe(opus);
  });

  it('keys only the model they belong to', () => {
    const providers = providersOf({ ANTHROPIC_API_KEY: 'sk-ant-x' });
    expect(providers.create('opus', run)).toBeInstanceOf(AnthropicProvider);
    expect(providers.create('gemini', run)).toBeInstanceOf(ScriptedProvider);
    expect(providers.create('unknown', run)).toBeInstanceOf(ScriptedProvider);
  });
});
