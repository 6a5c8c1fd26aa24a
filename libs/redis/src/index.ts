export * from './redis-keys';
export * from './cluster-slot';
export * from './script-runner';
export * from './redis.module';
