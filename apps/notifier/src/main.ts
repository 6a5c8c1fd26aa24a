import { bootstrap } from '@vigil/platform';
import { NotifierModule } from './notifier.module';

void bootstrap({
  name: 'notifier',
  module: (config) => NotifierModule.forRoot(config),
  port: (config) => config.notifierPort,
});
