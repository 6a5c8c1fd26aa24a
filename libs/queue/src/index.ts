export * from './slice-job';
export * from './slice-queue';
export * from './queue.module';
export * from './bull-connection';
export * from './wake-queue';
export * from './job-retention';
