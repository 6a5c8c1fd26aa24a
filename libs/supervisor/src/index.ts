export * from './supervisor.module';
export * from './supervisor.sweep';
export * from './task-supervisor';
export * from './lease.service';
export * from './exit-check.runner';
export * from './failure-report';
export * from './retry-publisher';
export * from './dead-worker.detector';
