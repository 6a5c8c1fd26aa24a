export * from './object-store';
export * from './object-keys';
