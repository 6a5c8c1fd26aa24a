import { Controller, Get } from '@nestjs/common';
import { CODE_VERSION } from '@vigil/control';

/** Which code is running: a deploy is confirmed here, not assumed. */
@Controller()
export class VersionController {
  @Get('version')
  version() {
    return { version: CODE_VERSION.version, commit: CODE_VERSION.commit, startedAt: CODE_VERSION.startedAt };
  }
}
