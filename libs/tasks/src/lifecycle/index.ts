// The lifecycle's public face: the writer (TransitionWriter) stays inside.
export * from './task-lifecycle';
export * from './lifecycle.module';
export * from './ports';
export * from './transition-command';
export { SLICE_HOLDERS } from './worker-moves';
export { PERSON_MOVES_FROM } from './people-moves';
export type { RecoveryLease } from './watcher-moves';
export * from './redis-task-lifecycle';
