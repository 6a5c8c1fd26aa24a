import type { ObjectStore } from '@vigil/object-store';

/**
 * A small in-memory ObjectStore for the tests of archive reads: keys in byte order, `list` paged
 * like the real drivers (`after` exclusive, `next` when more follow). Named apart from the object
 * store library's own fake so the two never clash.
 */
export class InMemoryArchiveStore implements ObjectStore {
  readonly location = 'memory://archive-tests';
  readonly objects = new Map<string, Buffer>();

  put(key: string, body: Buffer, _contentType = 'application/octet-stream'): Promise<void> {
    this.objects.set(key, Buffer.from(body));
    return Promise.resolve();
  }

  get(key: string): Promise<Buffer | null> {
    const body = this.objects.get(key);
    return Promise.resolve(body ? Buffer.from(body) : null);
  }

  head(key: string): Promise<{ bytes: number } | null> {
    const body = this.objects.get(key);
    return Promise.resolve(body ? { bytes: body.length } : null);
  }

  delete(key: string): Promise<void> {
    this.objects.delete(key);
    return Promise.resolve();
  }

  list(
    prefix: string,
    options: { after?: string; limit: number },
  ): Promise<{ keys: string[]; next?: string }> {
    const matching = [...this.objects.keys()]
      .filter((key) => key.startsWith(prefix) && (options.after === undefined || key > options.after))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const keys = matching.slice(0, options.limit);
    return Promise.resolve(
      matching.length > options.limit ? { keys, next: keys[keys.length - 1] } : { keys },
    );
  }
}
