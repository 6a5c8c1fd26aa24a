import {
  checkedLimit,
  checkedListPrefix,
  checkedObjectKey,
  ObjectStoreError,
  type ObjectStore,
} from '@vigil/object-store';

interface StoredObject {
  body: Buffer;
  contentType: string;
}

/**
 * An ObjectStore in memory, for unit tests of what stores archives, artifacts and large outputs.
 * Checks keys and listings as the real drivers do (the int contract spec runs it beside them), and
 * copies bytes in and out so a test cannot change a stored object by reusing a buffer.
 */
export class MemoryObjectStore implements ObjectStore {
  readonly location = 'memory://';
  private readonly objects = new Map<string, StoredObject>();
  /** Set to make every following call fail as an unreachable store would. */
  failure: string | null = null;

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    this.check(key);
    this.objects.set(key, { body: Buffer.from(body), contentType });
  }

  async putAndReadBack(key: string, body: Buffer, contentType: string): Promise<Buffer | null> {
    await this.put(key, body, contentType);
    return this.get(key);
  }

  async get(key: string): Promise<Buffer | null> {
    this.check(key);
    const stored = this.objects.get(key);
    return stored ? Buffer.from(stored.body) : null;
  }

  async head(key: string): Promise<{ bytes: number } | null> {
    this.check(key);
    const stored = this.objects.get(key);
    return stored ? { bytes: stored.body.length } : null;
  }

  async delete(key: string): Promise<void> {
    this.check(key);
    this.objects.delete(key);
  }

  async list(
    prefix: string,
    options: { after?: string; limit: number },
  ): Promise<{ keys: string[]; next?: string }> {
    checkedListPrefix(prefix);
    const limit = checkedLimit(options.limit);
    this.failIfSet(prefix);
    const after = options.after ?? '';
    const found = [...this.objects.keys()]
      .filter((key) => key.startsWith(prefix) && key > after)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const keys = found.slice(0, limit);
    return found.length > limit ? { keys, next: keys[keys.length - 1] } : { keys };
  }

  /** Every key held, in order (for assertions). */
  keys(): string[] {
    return [...this.objects.keys()].sort();
  }

  /** The content type an object was written with, or undefined. */
  contentTypeOf(key: string): string | undefined {
    return this.objects.get(key)?.contentType;
  }

  private check(key: string): void {
    checkedObjectKey(key);
    this.failIfSet(key);
  }

  private failIfSet(key: string): void {
    if (this.failure !== null)
      throw new ObjectStoreError(`could not reach memory:// for ${key}: ${this.failure}`);
  }
}
