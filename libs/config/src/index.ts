export * from './config';
export * from './config.token';
export { ConfigError } from './env-parsers';
export * from './providers';
