export * from './config';
export * from './config.module';
export { ConfigError } from './env-parsers';
