import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { OBJECT_STORE, type ObjectStore } from './object-store';
import { objectStoreFrom } from './object-store.factory';
import { S3ObjectStore } from './s3-object-store';

/**
 * Provides OBJECT_STORE, the driver OBJECT_STORE_URL names, to the whole process (global: every
 * module that stores archives, artifacts or large outputs injects the same one). Needs the
 * STORAGE_CONFIG section, which PlatformModule provides.
 */
@Global()
@Module({
  providers: [
    {
      provide: OBJECT_STORE,
      useFactory: (storage: StorageConfig) => objectStoreFrom(storage),
      inject: [STORAGE_CONFIG],
    },
  ],
  exports: [OBJECT_STORE],
})
export class ObjectStoreModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(OBJECT_STORE) private readonly store: ObjectStore) {}

  onApplicationBootstrap(): void {
    new Logger('ObjectStore').log(`objects go to ${this.store.location}`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.store instanceof S3ObjectStore) await this.store.close();
  }
}
