import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { FileObjectStore, S3ObjectStore } from '@vigil/object-store';
import { MemoryObjectStore, startS3Server, useAwsEnvironment, type S3TestServer } from '@vigil/testing';
import { describeObjectStoreContract } from './object-store.contract';

// The file driver: each store is `root/` inside its own temporary directory, which must hold
// nothing but `root` (whatever a crafted key tried).
const parents: string[] = [];
afterAll(async () => {
  await Promise.all(parents.map((parent) => rm(parent, { recursive: true, force: true })));
});
describeObjectStoreContract({
  name: 'file://',
  async fresh() {
    const parent = await mkdtemp(join(tmpdir(), 'vigil-objects-'));
    parents.push(parent);
    const store = new FileObjectStore('root', parent);
    return {
      store,
      outside: async () =>
        (await readdir(parent, { recursive: true })).filter((entry) => !`${entry}`.startsWith('root')),
    };
  },
});

// The S3 driver through the real AWS SDK against s3rver: each store under its own prefix of one
// bucket, and no object of the bucket may lie outside the prefixes the stores were given.
let server: S3TestServer;
let restoreEnv: () => void;
const prefixes: string[] = [];
beforeAll(async () => {
  server = await startS3Server();
  restoreEnv = useAwsEnvironment(server);
});
afterAll(async () => {
  restoreEnv();
  await server.stop();
});
describeObjectStoreContract({
  name: 's3://',
  async fresh() {
    const prefix = `vigil-${randomBytes(4).toString('hex')}`;
    prefixes.push(prefix);
    const options = { endpoint: server.endpoint, forcePathStyle: true };
    const store = new S3ObjectStore({ url: `s3://${server.bucket}/${prefix}`, ...options });
    const bucket = new S3ObjectStore({ url: `s3://${server.bucket}`, ...options });
    return {
      store,
      outside: async () =>
        (await bucket.list('', { limit: 1000 })).keys.filter(
          (key) => !prefixes.some((known) => key.startsWith(`${known}/`)),
        ),
    };
  },
});

// The fake other tests use keeps the same contract.
describeObjectStoreContract({
  name: 'memory (the test fake)',
  async fresh() {
    return { store: new MemoryObjectStore(), outside: async () => [] };
  },
});
