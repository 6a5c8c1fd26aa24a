/**
 * The object store (docs/operations.md, "The object store"): where what is too big or too old for
 * Redis goes — task archives, artifacts, tool outputs larger than MAX_INLINE_OUTPUT_BYTES. Two
 * drivers implement it, `file://` and `s3://`; callers name objects only through `ObjectKeys`, so a
 * key is always built from validated ids.
 */
export interface ObjectStore {
  /** Where objects go, for boot logs and `doctor` (never credentials). */
  readonly location: string;
  /** Writes the whole object, replacing one of the same key. */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * Writes the whole object, then reads it back from the store once the write is durable: the
   * bytes the store now holds under the key, or null when it holds none. A driver that can read
   * the object it just wrote without a second full request does (the file driver reads the file it
   * synced); what it returns is always read from the store, never the bytes given.
   */
  putAndReadBack(key: string, body: Buffer, contentType: string): Promise<Buffer | null>;
  /** The object's bytes, or null when there is none of that key. */
  get(key: string): Promise<Buffer | null>;
  /** The object's size, or null when there is none of that key. */
  head(key: string): Promise<{ bytes: number } | null>;
  /** Removes the object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Keys under a prefix in ascending byte order, at most `limit`, starting after `after`
   * (exclusive); `next` is set when more may follow (pass it back as `after`).
   */
  list(
    prefix: string,
    options: { after?: string; limit: number },
  ): Promise<{ keys: string[]; next?: string }>;
}

/** Injection token of the process's ObjectStore. */
export const OBJECT_STORE = Symbol('OBJECT_STORE');

/** The store could not be reached or refused the operation (not: the object is missing). */
export class ObjectStoreError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ObjectStoreError';
  }
}
