import type { Provider } from '@nestjs/common';
import { KINDS_CONFIG, MODEL_NAMES, VIGIL_CONFIG, type KindsConfig, type VigilConfig } from '@vigil/config';
import { TOOL_GATEWAY, type ToolGateway } from '@vigil/tools';
import { KIND_SERVICES, KindBinder } from './bound-kind';
import { KindModuleError } from './kind-loader';
import { KindRegistry } from './kind-registry';
import type { KindConfig, KindServices, TaskKind } from './task-kind';

/** The one place a process's KindServices are made: what every kind's tools and checks are handed. */
export function kindServices(config: VigilConfig, tools: ToolGateway): KindServices {
  return { config: kindConfigOf(config), tools };
}

/** The kind config of a validated config: a frozen copy of the few fields kinds read. */
export function kindConfigOf(config: VigilConfig): KindConfig {
  const { metaApiBaseUrl, metaAccessToken, toolsAllowPrivate, toolCallTimeoutMs, firstModel } = config;
  const modelsWithKeys = Object.freeze(
    MODEL_NAMES.filter((model) => (model === 'opus' ? config.anthropicApiKey : config.geminiApiKey)),
  );
  return Object.freeze({
    metaApiBaseUrl,
    metaAccessToken,
    toolsAllowPrivate,
    toolCallTimeoutMs,
    firstModel,
    modelsWithKeys,
  });
}

/**
 * The providers of a process's kinds (api, worker and watcher): the registry of `builtIns` and of
 * the code kinds of VIGIL_KINDS, loaded once; the services; the binder. A module that cannot be
 * used stops the process at boot with a message naming it, exit code 78 like any configuration
 * error (docs/kinds.md, "Code kinds"). libs/builtin-kinds makes its KindsModule of them.
 */
export function kindProviders(builtIns: readonly TaskKind[]): Provider[] {
  return [
    {
      provide: KindRegistry,
      inject: [KINDS_CONFIG],
      useFactory: (config: KindsConfig) => {
        try {
          return new KindRegistry(builtIns, config.kindModules);
        } catch (error) {
          if (!(error instanceof KindModuleError)) throw error;
          process.stderr.write(`vigil: invalid VIGIL_KINDS: ${error.message}\n`);
          process.exit(78); // EX_CONFIG
        }
      },
    },
    { provide: KIND_SERVICES, inject: [VIGIL_CONFIG, TOOL_GATEWAY], useFactory: kindServices },
    KindBinder,
  ];
}
