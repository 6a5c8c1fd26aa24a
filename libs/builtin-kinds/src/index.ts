export * from './built-in-kinds';
export * from './kinds.module';
export * from './noop/noop.kind';
export * from './noop/noop.input';
export * from './campaign-build';
export * from './mission';
