import type { VigilConfig } from '@vigil/config';
import { BUILT_IN_KINDS } from '@vigil/builtin-kinds';
import { KindBinder, KindRegistry, kindServices } from '@vigil/kinds';
import type { ToolGateway } from '@vigil/tools';

/** The built-in kinds bound with `config` and `tools`, as a process's KindsModule provides them. */
export function builtInKindBinder(config: VigilConfig, tools: ToolGateway): KindBinder {
  return new KindBinder(new KindRegistry(BUILT_IN_KINDS), kindServices(config, tools));
}
