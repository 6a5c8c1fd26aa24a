export * from './redis-keys';
export * from './cluster-slot';
export * from './script-runner';
export * from './redis-connection';
export * from './cluster-nodes';
export * from './cross-slot-pipeline';
export * from './redis.module';
export * from './write-coalescing';
