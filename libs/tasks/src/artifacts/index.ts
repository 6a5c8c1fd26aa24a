export * from './artifact.types';
export * from './artifact-list';
export * from './artifact-bytes';
export * from './artifact-errors';
