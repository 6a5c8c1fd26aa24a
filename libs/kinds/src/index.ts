export * from './task-kind';
export * from './validate-input';
export * from './kind-registry';
export * from './kinds.module';
export * from './noop/noop.kind';
export * from './noop/noop.input';
export * from './campaign-build';
