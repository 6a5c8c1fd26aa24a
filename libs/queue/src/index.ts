export * from './turn-job';
export * from './turn-queue';
export * from './queue.module';
