import { Module } from '@nestjs/common';
import { VIGIL_CONFIG, type VigilConfig } from '@vigil/config';
import { KindModuleError } from './kind-loader';
import { KindRegistry } from './kind-registry';

/**
 * The built-in kinds and the code kinds of VIGIL_KINDS, loaded once per process (api, worker and
 * watcher all import this module). A module that cannot be used stops the process at boot with a
 * message naming it, exit code 78 like any configuration error (docs/kinds.md, "Code kinds").
 */
@Module({
  providers: [
    {
      provide: KindRegistry,
      inject: [VIGIL_CONFIG],
      useFactory: (config: VigilConfig) => {
        try {
          return new KindRegistry(config.kindModules);
        } catch (error) {
          if (!(error instanceof KindModuleError)) throw error;
          process.stderr.write(`vigil: invalid VIGIL_KINDS: ${error.message}\n`);
          process.exit(78); // EX_CONFIG
        }
      },
    },
  ],
  exports: [KindRegistry],
})
export class KindsModule {}
