export * from './turn-job';
export * from './turn-queue';
export * from './queue.module';
export * from './bull-connection';
export * from './wake-queue';
