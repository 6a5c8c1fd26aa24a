import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { STORAGE_CONFIG } from '@vigil/config';
import { FileObjectStore } from './file-object-store';
import { OBJECT_STORE } from './object-store';
import { ObjectStoreModule } from './object-store.module';

@Global()
@Module({
  providers: [
    {
      provide: STORAGE_CONFIG,
      useValue: {
        objectStoreUrl: 'file:///tmp/vigil-objects',
        s3Endpoint: undefined,
        s3ForcePathStyle: false,
      },
    },
  ],
  exports: [STORAGE_CONFIG],
})
class StorageConfigModule {}

@Module({ imports: [StorageConfigModule, ObjectStoreModule] })
class AppModule {}

describe('ObjectStoreModule', () => {
  it('provides OBJECT_STORE from STORAGE_CONFIG to the whole process', async () => {
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const store = app.get(OBJECT_STORE);
      expect(store).toBeInstanceOf(FileObjectStore);
      expect(store.location).toBe('file:///tmp/vigil-objects');
    } finally {
      await app.close();
    }
  });
});
