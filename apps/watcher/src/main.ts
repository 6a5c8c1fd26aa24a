import { bootstrap } from '@vigil/platform';
import { WatcherModule } from './watcher.module';

void bootstrap({
  name: 'watcher',
  module: (config) => WatcherModule.forRoot(config),
  port: (config) => config.watcherPort,
});
