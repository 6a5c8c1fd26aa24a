export * from './task-archive.types';
export * from './task-archive.codec';
export * from './retention-policy';
export * from './task-archive-writer';
