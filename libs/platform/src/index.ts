export * from './bootstrap';
export * from './platform.module';
export * from './metrics';
export * from './redis.health';
export * from './code-version';
export * from './version.controller';
export * from './secrets';
export * from './http-metrics';
