export * from './task-event';
export * from './stream-consumer';
