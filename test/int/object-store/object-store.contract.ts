import { createHash, randomBytes } from 'node:crypto';
import { InvalidObjectKeyError, ObjectKeys, type ObjectStore } from '@vigil/object-store';

/** One driver under the contract: a fresh, empty store per test, and what lies outside it. */
export interface ContractDriver {
  name: string;
  /** An empty store; `outside` lists every object or file that is NOT inside it (must stay empty). */
  fresh(): Promise<{ store: ObjectStore; outside(): Promise<string[]> }>;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Ids an attacker might send as a tenant or task id; none may become part of a key. */
export const CRAFTED_IDS = [
  '../x',
  '..',
  '.',
  'a/b',
  '%2e%2e',
  '%2e%2e%2fx',
  '',
  'x'.repeat(300),
  'tënant',
  '租户',
  'a\\..\\b',
  'a\u0000b',
  ' t1',
];

/** Raw keys that a driver itself must refuse, whoever hands them over. */
export const CRAFTED_KEYS = [
  '../x',
  'a/../../x',
  '..',
  '/etc/passwd',
  'a//b',
  'a/./b',
  'a/',
  '.hidden',
  'a\\..\\b',
  '%2e%2e/x',
  '',
  'é/x',
  `a/${'b'.repeat(1100)}`,
];

/** The ObjectStore contract (libs/object-store/src/object-store.ts), the same for every driver. */
export function describeObjectStoreContract(driver: ContractDriver): void {
  describe(`the ${driver.name} object store`, () => {
    let store: ObjectStore;
    let outside: () => Promise<string[]>;
    beforeEach(async () => {
      ({ store, outside } = await driver.fresh());
    });

    it('gives back exactly the bytes put, every byte value included, and their size', async () => {
      const body = Buffer.concat([Buffer.from([...Array(256).keys()]), randomBytes(100_000)]);
      await store.put('artifacts/t1/tsk_1/blob', body, 'application/octet-stream');
      expect((await store.get('artifacts/t1/tsk_1/blob'))!.equals(body)).toBe(true);
      expect(await store.head('artifacts/t1/tsk_1/blob')).toEqual({ bytes: body.length });
    });

    it('reads back what it wrote, replacing an older object, many writes at once into one place', async () => {
      await store.put('archive/t1/tsk_0.json.gz', Buffer.from('an older, longer object'), 'application/gzip');
      const bodies = Array.from({ length: 12 }, (_, i) =>
        i === 0 ? Buffer.from('new') : Buffer.concat([randomBytes(i * 997), Buffer.alloc(i)]),
      );
      const backs = await Promise.all(
        bodies.map((body, i) =>
          store.putAndReadBack(`archive/t1/tsk_${i}.json.gz`, body, 'application/gzip'),
        ),
      );
      bodies.forEach((body, i) => expect(backs[i]!.equals(body)).toBe(true));
      for (const [i, body] of bodies.entries())
        expect((await store.get(`archive/t1/tsk_${i}.json.gz`))!.equals(body)).toBe(true);
      const empty = await store.putAndReadBack('archive/t1/empty', Buffer.alloc(0), 'application/gzip');
      expect(empty!.length).toBe(0);
    });

    it('replaces an object put again under the same key, and keeps an empty one', async () => {
      await store.put('a/b', Buffer.from('first, longer'), 'text/plain');
      await store.put('a/b', Buffer.from('second'), 'text/plain');
      await store.put('a/empty', Buffer.alloc(0), 'text/plain');
      expect((await store.get('a/b'))!.toString()).toBe('second');
      expect((await store.get('a/empty'))!.length).toBe(0);
      expect(await store.head('a/empty')).toEqual({ bytes: 0 });
    });

    it('answers null for a missing object, also where a directory or a prefix of keys is', async () => {
      await store.put('a/b/c', Buffer.from('x'), 'text/plain');
      for (const key of ['nothing', 'a/b', 'a', 'a/b/c/d', 'a/b/cc'])
        await expect(Promise.all([store.get(key), store.head(key)])).resolves.toEqual([null, null]);
    });

    it('deletes an object, and deleting one that is not there is no error', async () => {
      await store.put('a/b', Buffer.from('x'), 'text/plain');
      await store.delete('a/b');
      await store.delete('a/b');
      await store.delete('never/was');
      expect(await store.get('a/b')).toBeNull();
      expect((await store.list('a/', { limit: 10 })).keys).toEqual([]);
    });

    it('lists keys under a prefix in ascending byte order, page by page, `after` exclusive', async () => {
      const keys = ['p/a/y', 'p/b', 'p/a-b', 'p/a/x', 'p/a.c', 'p/a/w/deeper', 'q/a', 'p0'];
      for (const key of keys) await store.put(key, Buffer.from(key), 'text/plain');
      // A depth-first walk would give p/a/… before p/a-b: '-' and '.' sort before '/'.
      const expected = ['p/a-b', 'p/a.c', 'p/a/w/deeper', 'p/a/x', 'p/a/y', 'p/b'];

      const pages: string[][] = [];
      let after: string | undefined;
      do {
        const page = await store.list('p/', { after, limit: 2 });
        pages.push(page.keys);
        after = page.next;
      } while (after);
      expect(pages.flat()).toEqual(expected);
      expect(pages.every((page) => page.length <= 2)).toBe(true);

      expect(await store.list('p/', { limit: 6 })).toEqual({ keys: expected });
      expect((await store.list('p/', { after: 'p/a/w/deeper', limit: 10 })).keys).toEqual(expected.slice(3));
      expect((await store.list('p/a', { limit: 10 })).keys).toEqual(expected.slice(0, 5));
      expect((await store.list('', { limit: 10 })).keys).toEqual([...expected, 'p0', 'q/a']);
      expect((await store.list('none/', { limit: 10 })).keys).toEqual([]);
    });

    it("keeps one tenant's listing to its own prefix, never a tenant whose id only starts the same", async () => {
      for (const tenant of ['t1', 't10', 't1-x'])
        await store.put(ObjectKeys.archive(tenant, 'tsk_a'), Buffer.from(tenant), 'application/gzip');
      const { keys } = await store.list(ObjectKeys.archivePrefix('t1'), { limit: 10 });
      expect(keys).toEqual(['archive/t1/tsk_a.json.gz']);
      expect(keys.map((key) => ObjectKeys.taskIdOfArchive(key))).toEqual(['tsk_a']);
    });

    it('stores artifacts by tenant, task and content hash', async () => {
      const id = sha('bytes');
      await store.put(ObjectKeys.artifact('t1', 'tsk_1', id), Buffer.from('bytes'), 'application/json');
      expect((await store.list(ObjectKeys.artifactPrefix('t1', 'tsk_1'), { limit: 5 })).keys).toEqual([
        `artifacts/t1/tsk_1/${id}`,
      ]);
      expect((await store.list(ObjectKeys.artifactPrefix('t1', 'tsk_2'), { limit: 5 })).keys).toEqual([]);
    });

    it.each(CRAFTED_IDS.map((id) => [JSON.stringify(id).slice(0, 40), id]))(
      'never makes a key of the crafted id %s, as a tenant or as a task',
      (_label, id) => {
        const fine = sha('x');
        expect(() => ObjectKeys.archive(id, 'tsk_1')).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.archive('t1', id)).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.archivePrefix(id)).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.artifact(id, 'tsk_1', fine)).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.artifact('t1', id, fine)).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.artifact('t1', 'tsk_1', id)).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.artifactPrefix(id, 'tsk_1')).toThrow(InvalidObjectKeyError);
        expect(() => ObjectKeys.artifactPrefix('t1', id)).toThrow(InvalidObjectKeyError);
      },
    );

    it('refuses a crafted raw key in every operation, and nothing lands outside the store', async () => {
      await store.put('t2/secret', Buffer.from('another tenant'), 'text/plain');
      for (const key of CRAFTED_KEYS) {
        await expect(store.put(key, Buffer.from('evil'), 'text/plain')).rejects.toThrow(
          InvalidObjectKeyError,
        );
        await expect(store.putAndReadBack(key, Buffer.from('evil'), 'text/plain')).rejects.toThrow(
          InvalidObjectKeyError,
        );
        await expect(store.get(key)).rejects.toThrow(InvalidObjectKeyError);
        await expect(store.head(key)).rejects.toThrow(InvalidObjectKeyError);
        await expect(store.delete(key)).rejects.toThrow(InvalidObjectKeyError);
      }
      for (const prefix of ['../', '/', 'a//', '../t2/', '%2e%2e/'])
        await expect(store.list(prefix, { limit: 5 })).rejects.toThrow(InvalidObjectKeyError);
      expect(await outside()).toEqual([]);
      expect((await store.list('', { limit: 10 })).keys).toEqual(['t2/secret']);
      expect((await store.get('t2/secret'))!.toString()).toBe('another tenant');
    });

    it('refuses a listing limit that is not a positive whole number', async () => {
      for (const limit of [0, -1, 1.5, Number.NaN])
        await expect(store.list('', { limit })).rejects.toThrow(RangeError);
    });
  });
}
