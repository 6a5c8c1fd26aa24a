export * from './object-store';
export * from './object-keys';
export * from './object-key-guard';
export * from './file-object-store';
export * from './s3-object-store';
export * from './object-store.factory';
export * from './object-store.module';
