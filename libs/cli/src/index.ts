export * from './cli-env';
export * from './cli-program';
export * from './cli-runtime';
export * from './exit-codes';
export * from './printer';

/**
 * `vigil doctor`, loaded only when it runs: it brings ioredis, the object store drivers and the MCP
 * clients, which no `tasks` command needs.
 */
export const loadDoctor = () => import('./doctor/run-doctor');
