import { bootstrap } from '@vigil/platform';
import { WorkerModule } from './worker.module';

void bootstrap({
  name: 'worker',
  module: (config) => WorkerModule.forRoot(config),
  port: (config) => config.workerPort,
});
