export * from './task-archive.types';
export * from './task-archive.codec';
export * from './archived-tasks';
export * from './readable-tasks';
export * from './read-task-for-archive';
export * from './retention-policy';
export * from './task-archive-writer';
