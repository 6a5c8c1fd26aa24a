import { Global, Module } from '@nestjs/common';
import { loadConfig, VigilConfig } from './config';

export const VIGIL_CONFIG = Symbol('VIGIL_CONFIG');

/** Loads and validates the configuration once per process; a bad value stops the boot. */
@Global()
@Module({
  providers: [{ provide: VIGIL_CONFIG, useFactory: (): VigilConfig => loadConfig(process.env) }],
  exports: [VIGIL_CONFIG],
})
export class ConfigModule {}
