export * from './artifact.types';
export * from './artifact-list';
