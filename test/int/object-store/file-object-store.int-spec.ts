import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileObjectStore,
  InvalidObjectKeyError,
  ObjectStoreError,
  objectStoreFrom,
} from '@vigil/object-store';

describe('the file:// object store, beyond the shared contract', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'vigil-file-store-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('takes a relative directory from the working directory it is given, an absolute one as it is', () => {
    expect(FileObjectStore.fromUrl('file://./objects', parent).location).toBe(`file://${parent}/objects`);
    expect(FileObjectStore.fromUrl(`file://${parent}/abs`, '/elsewhere').location).toBe(
      `file://${parent}/abs`,
    );
    const store = objectStoreFrom(
      { objectStoreUrl: 'file://./.vigil/objects', s3Endpoint: undefined, s3ForcePathStyle: false },
      parent,
    );
    expect(store).toBeInstanceOf(FileObjectStore);
    expect(store.location).toBe(`file://${parent}/.vigil/objects`);
  });

  it('writes one file per key, leaves no temporary behind, and lists nothing for a root not yet made', async () => {
    const store = new FileObjectStore('root', parent);
    expect(await store.list('', { limit: 5 })).toEqual({ keys: [] });
    await store.put('artifacts/t1/tsk_1/abc', Buffer.from('bytes'), 'application/json');
    expect(await readdir(join(parent, 'root/artifacts/t1/tsk_1'))).toEqual(['abc']);
  });

  it('never lists a stray temporary or a file no key could name, nor lets a key reach one', async () => {
    const store = new FileObjectStore('root', parent);
    await store.put('a/kept', Buffer.from('x'), 'text/plain');
    await writeFile(join(parent, 'root/a/.tmp-0123456789abcdef'), 'half a write');
    await writeFile(join(parent, 'root/a/with space'), 'not a key');
    await mkdir(join(parent, 'root/.hidden'));
    await writeFile(join(parent, 'root/.hidden/x'), 'not a key');
    expect((await store.list('', { limit: 10 })).keys).toEqual(['a/kept']);
    await expect(store.get('a/.tmp-0123456789abcdef')).rejects.toThrow(InvalidObjectKeyError);
  });

  it("refuses a raw '../' key with its own guard, in every operation", async () => {
    const store = new FileObjectStore(join(parent, 'root'));
    await writeFile(join(parent, 'victim'), 'outside the root');
    await expect(store.get('../victim')).rejects.toThrow(InvalidObjectKeyError);
    await expect(store.head('../victim')).rejects.toThrow(InvalidObjectKeyError);
    await expect(store.delete('../victim')).rejects.toThrow(InvalidObjectKeyError);
    await expect(store.put('../victim', Buffer.from('overwritten'), 'text/plain')).rejects.toThrow(
      InvalidObjectKeyError,
    );
    expect((await readdir(parent)).sort()).toEqual(['victim']);
  });

  it('reports a store it cannot write to as ObjectStoreError naming the key, and leaves no temporary', async () => {
    await writeFile(join(parent, 'not-a-directory'), 'a file where the root should be');
    const store = new FileObjectStore('not-a-directory', parent);
    const failure = await store.put('a/b', Buffer.from('x'), 'text/plain').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ObjectStoreError);
    expect((failure as Error).message).toContain('could not write a/b');
    await expect(store.list('', { limit: 1 })).rejects.toThrow(ObjectStoreError);
    expect(await readdir(parent)).toEqual(['not-a-directory']);
  });
});
