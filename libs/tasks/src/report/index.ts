export * from './build-report';
export * from './report-inputs';
export * from './task-report.reader';
export { summariseWrites, type WriteSummary } from './external-writes';
