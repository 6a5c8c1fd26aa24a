export * from './redis-test-context';
export * from './task-factory';
export * from './http-client';
export * from './app-process';
export * from './vigil-stack';
export * from './free-port';
export * from './webhook-receiver';
export * from './anthropic-fake';
