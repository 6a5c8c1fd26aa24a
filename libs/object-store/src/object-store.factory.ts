import type { StorageConfig } from '@vigil/config';
import { FileObjectStore } from './file-object-store';
import type { ObjectStore } from './object-store';
import { S3ObjectStore } from './s3-object-store';

/**
 * The process's object store from its storage configuration (OBJECT_STORE_URL, S3_ENDPOINT,
 * S3_FORCE_PATH_STYLE), for callers outside Nest (scripts, tools); ObjectStoreModule uses it too.
 * A relative `file://` directory is taken from `cwd`.
 */
export function objectStoreFrom(
  storage: Pick<StorageConfig, 'objectStoreUrl' | 's3Endpoint' | 's3ForcePathStyle'>,
  cwd: string = process.cwd(),
): ObjectStore {
  const url = storage.objectStoreUrl;
  if (url.startsWith('s3://'))
    return new S3ObjectStore({ url, endpoint: storage.s3Endpoint, forcePathStyle: storage.s3ForcePathStyle });
  return FileObjectStore.fromUrl(url, cwd);
}
