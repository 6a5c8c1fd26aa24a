export * from './tracing';
export * from './trace-ids';
export * from './attributes';
export * from './create-tracing';
