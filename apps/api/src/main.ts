import { bootstrap } from '@vigil/platform';
import { ApiModule } from './api.module';
import { configureApi } from './configure-api';

void bootstrap({
  name: 'api',
  module: (config) => ApiModule.forRoot(config),
  port: (config) => config.port,
  configure: (app) => configureApi(app),
});
