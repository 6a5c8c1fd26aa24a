import { inspect } from 'node:util';
import { ObjectStoreError, S3ObjectStore, objectStoreFrom, type ObjectStore } from '@vigil/object-store';
import { freePort, startS3Server, useAwsEnvironment, type S3TestServer } from '@vigil/testing';

const SECRET = 'known-secret-Zq8vT3xK9mPw2Lr7';
const SESSION_TOKEN = 'known-session-token-Hy4nB6cR1dFs';

/** Every operation of a store, each expected to fail: their errors. */
async function failures(store: ObjectStore): Promise<unknown[]> {
  const calls = [
    () => store.put('a/b', Buffer.from('x'), 'text/plain'),
    () => store.get('a/b'),
    () => store.head('a/b'),
    () => store.delete('a/b'),
    () => store.list('a/', { limit: 5 }),
  ];
  const errors: unknown[] = [];
  for (const call of calls)
    errors.push(
      await call().then(
        () => 'no error',
        (error: unknown) => error,
      ),
    );
  return errors;
}

function expectNoCredentials(errors: unknown[], cause: RegExp): void {
  for (const error of errors) {
    expect(error).toBeInstanceOf(ObjectStoreError);
    const seen = `${(error as Error).message}\n${String(error)}\n${inspect(error, { depth: 10 })}`;
    expect((error as Error).message).toMatch(cause);
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain(SESSION_TOKEN);
  }
}

describe('the s3:// object store, beyond the shared contract', () => {
  let server: S3TestServer;
  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterEach(() => {
    restoreEnv?.();
    restoreEnv = undefined;
  });
  afterAll(async () => {
    await server.stop();
  });

  const storeAt = (url: string, endpoint = server.endpoint) =>
    objectStoreFrom({ objectStoreUrl: url, s3Endpoint: endpoint, s3ForcePathStyle: true });

  it('takes bucket and prefix from the URL, credentials from the environment, and a default region', async () => {
    restoreEnv = useAwsEnvironment(server);
    const store = storeAt(`s3://${server.bucket}/tenants/objects`);
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(store.location).toBe(`s3://${server.bucket}/tenants/objects/ at ${server.endpoint}`);
    await store.put('a/b', Buffer.from('here'), 'text/plain');
    const whole = storeAt(`s3://${server.bucket}`);
    expect((await whole.list('tenants/', { limit: 5 })).keys).toEqual(['tenants/objects/a/b']);
    expect((await whole.get('tenants/objects/a/b'))!.toString()).toBe('here');
  });

  it('never puts the secret key or session token in an error, when the service refuses the signature', async () => {
    restoreEnv = useAwsEnvironment(server, {
      AWS_SECRET_ACCESS_KEY: SECRET,
      AWS_SESSION_TOKEN: SESSION_TOKEN,
    });
    expectNoCredentials(await failures(storeAt(`s3://${server.bucket}/p`)), /SignatureDoesNotMatch|HTTP 403/);
  });

  it('never puts them in an error when the service cannot be reached either', async () => {
    restoreEnv = useAwsEnvironment(server, {
      AWS_SECRET_ACCESS_KEY: SECRET,
      AWS_SESSION_TOKEN: SESSION_TOKEN,
    });
    const closed = `http://127.0.0.1:${await freePort()}`;
    expectNoCredentials(await failures(storeAt(`s3://${server.bucket}/p`, closed)), /ECONNREFUSED|connect/i);
  });

  it('reports a missing bucket as a failing store, never as a missing object', async () => {
    restoreEnv = useAwsEnvironment(server);
    const store = storeAt('s3://no-such-bucket/p');
    await expect(store.get('a/b')).rejects.toThrow(/NoSuchBucket/);
    await expect(store.list('', { limit: 1 })).rejects.toThrow(ObjectStoreError);
    await expect(store.put('a/b', Buffer.from('x'), 'text/plain')).rejects.toThrow(ObjectStoreError);
  });
});
