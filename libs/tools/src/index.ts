export * from './tool-gateway';
