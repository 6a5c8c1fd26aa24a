export * from './steering.types';
export * from './steering-errors';
export * from './steering-log';
