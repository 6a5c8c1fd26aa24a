export * from './client-errors';
export * from './client-types';
export * from './event-follower';
export * from './pages';
export * from './task-events';
export * from './vigil-client';
export type { components, operations, paths } from './openapi.generated';
