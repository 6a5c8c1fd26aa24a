import { Controller, Get, Inject } from '@nestjs/common';
import { MODELS_CONFIG, ModelsConfig, providersInUse } from '@vigil/config';
import { CODE_VERSION } from './code-version';

/** Which code is running, and which model providers are real: a deploy is confirmed here, not assumed. */
@Controller()
export class VersionController {
  constructor(@Inject(MODELS_CONFIG) private readonly config: ModelsConfig) {}

  @Get('version')
  version() {
    return {
      version: CODE_VERSION.version,
      commit: CODE_VERSION.commit,
      codeVersion: CODE_VERSION.label,
      startedAt: CODE_VERSION.startedAt,
      providers: providersInUse(this.config),
    };
  }
}
