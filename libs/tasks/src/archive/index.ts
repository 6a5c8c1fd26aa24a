export * from './task-archive.types';
export * from './task-archive.codec';
