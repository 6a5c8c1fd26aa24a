export * from './task-status';
export * from './task.types';
export * from './task-errors';
export * from './task-codec';
export * from './task-scripts';
export * from './task.repository';
export * from './tasks.module';
export * from './control-signals';
