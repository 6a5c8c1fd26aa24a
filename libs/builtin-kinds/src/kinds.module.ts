import { Module } from '@nestjs/common';
import { KIND_SERVICES, KindBinder, kindProviders, KindRegistry } from '@vigil/kinds';
import { ToolsModule } from '@vigil/tools';
import { BUILT_IN_KINDS } from './built-in-kinds';

/**
 * The kinds of a process: the built-in ones and the code kinds of VIGIL_KINDS, loaded once (api,
 * worker and watcher import it through their libraries), with the KindBinder that binds them to
 * tasks. The tool gateway is global: one per process, whoever imports ToolsModule first.
 */
@Module({
  imports: [ToolsModule],
  providers: kindProviders(BUILT_IN_KINDS),
  exports: [KindRegistry, KindBinder, KIND_SERVICES],
})
export class KindsModule {}
