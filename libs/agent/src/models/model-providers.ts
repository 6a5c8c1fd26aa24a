import { Inject, Injectable } from '@nestjs/common';
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import { CLOCKS_CONFIG, MODELS_CONFIG, type ClockConfig, type ModelsConfig } from '@vigil/config';
import { AnthropicProvider, createAnthropicClient } from './anthropic.provider';
import { GeminiProvider, createGeminiClient } from './gemini.provider';
import type { ModelProvider } from './model-provider';
import { ScriptedProvider, ScriptedRun } from './scripted.provider';

const SDK_ATTEMPTS = 3;

/**
 * Picks the provider for a model name of the retry policy: Claude for `opus` when
 * ANTHROPIC_API_KEY is set, Gemini for `gemini` when GEMINI_API_KEY is set. With no key for it, the
 * name runs on the scripted provider, which plays `scripted` (the retry history still records the
 * policy's name).
 */
@Injectable()
export class ModelProviders {
  private anthropic?: Anthropic;
  private gemini?: GoogleGenAI;

  constructor(
    @Inject(MODELS_CONFIG) private readonly models: ModelsConfig,
    @Inject(CLOCKS_CONFIG) private readonly clocks: Pick<ClockConfig, 'modelCallTimeoutMs'>,
  ) {}

  /**
   * The SDKs' own timeouts and retries fit inside MODEL_CALL_TIMEOUT_MS: three attempts of a third
   * each, so a retried 529 or dropped connection still answers before the call's deadline.
   */
  private sdkLimits(): { timeoutMs: number; maxRetries: number } {
    return {
      timeoutMs: Math.floor(this.clocks.modelCallTimeoutMs / SDK_ATTEMPTS),
      maxRetries: SDK_ATTEMPTS - 1,
    };
  }

  /** A fresh provider per slice (providers may keep per-slice state); SDK clients are shared. */
  create(model: string, scripted: ScriptedRun): ModelProvider {
    if (model === 'opus' && this.models.anthropicApiKey) {
      this.anthropic ??= createAnthropicClient(this.models, this.sdkLimits());
      return new AnthropicProvider(this.models, { client: this.anthropic });
    }
    if (model === 'gemini' && this.models.geminiApiKey) {
      this.gemini ??= createGeminiClient(this.models, {
        timeoutMs: this.sdkLimits().timeoutMs,
        attempts: SDK_ATTEMPTS,
      });
      return new GeminiProvider(this.models, { client: this.gemini });
    }
    return new ScriptedProvider(model, scripted);
  }
}
