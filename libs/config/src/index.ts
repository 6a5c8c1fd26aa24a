export * from './config';
export * from './config.token';
export { ConfigError } from './env-parsers';
export * from './providers';
export * from './tool-catalog';
export { loadToolCatalog, parseToolCatalog } from './tool-catalog.loader';
export * from './config-sections';
