import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { DirectorySyncs } from './directory-syncs';
import { checkedLimit, checkedListPrefix, checkedObjectKey, isKeySegment } from './object-key-guard';
import { InvalidObjectKeyError } from './object-keys';
import { ObjectStoreError, type ObjectStore } from './object-store';

/** fs errors that mean "there is no object of that key", not a failing store. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/**
 * The `file://<dir>` driver (docs/operations.md, "The object store"): one file per object under a
 * root directory, a key's '/' separators becoming directories. A write goes to a temporary file in
 * the object's own directory, synced, then renamed over the key, so a reader sees the old object or
 * the new one, never part of one, and a crash leaves at most a stray temporary (a dotted name, never
 * listed). A directory shared by several machines (a mounted volume) serves them all.
 */
export class FileObjectStore implements ObjectStore {
  readonly location: string;
  private readonly root: string;
  /** A batch of writes into one directory (an archive sweep's) shares its directory syncs. */
  private readonly directorySyncs = new DirectorySyncs(syncDirectory);
  /** Temporary names: this process's random mark and a counter, unique without a random draw per write. */
  private readonly writer = randomBytes(6).toString('hex');
  private writes = 0;

  /** `directory` is taken relative to `cwd` (the process's working directory) when relative. */
  constructor(directory: string, cwd: string = process.cwd()) {
    this.root = resolve(cwd, directory);
    this.location = `file://${this.root}`;
  }

  /** The driver of a `file://<dir>` URL (OBJECT_STORE_URL); the rest of the URL is the directory as written. */
  static fromUrl(url: string, cwd?: string): FileObjectStore {
    const directory = /^file:\/\/(.+)$/.exec(url)?.[1]?.trim();
    if (!directory) throw new ObjectStoreError(`not a file:// object store URL: ${JSON.stringify(url)}`);
    return new FileObjectStore(directory, cwd);
  }

  async put(key: string, body: Buffer, _contentType: string): Promise<void> {
    await this.write(key, body, async () => undefined);
  }

  /**
   * The read-back goes through the file just written, synced and renamed over the key (so the very
   * file the key names, read from the disk's cache as any reader's would be), sparing a second
   * open, stat and close: an archive sweep calls this for every task it retires.
   */
  async putAndReadBack(key: string, body: Buffer, _contentType: string): Promise<Buffer | null> {
    return this.write(key, body, async (file) => {
      // One byte more than written, so a longer file shows as a different one.
      const back = Buffer.allocUnsafe(body.length + 1);
      let filled = 0;
      for (;;) {
        const { bytesRead } = await file.read(back, filled, back.length - filled, filled);
        if (bytesRead === 0 || (filled += bytesRead) === back.length) break;
      }
      return back.subarray(0, filled);
    });
  }

  /**
   * Writes to a temporary file in the object's own directory, synced, then renamed over the key
   * and the directory synced (shared with the writes renaming into it meanwhile); `then` runs on
   * the still open file once all of that is durable.
   */
  private async write<T>(key: string, body: Buffer, then: (file: FileHandle) => Promise<T>): Promise<T> {
    const path = this.pathOf(key);
    const directory = dirname(path);
    const temporary = `${directory}${sep}.tmp-${this.writer}-${(this.writes++).toString(36)}`;
    let renamed = false;
    try {
      const file = await openCreating(temporary, directory);
      try {
        await file.writeFile(body);
        // The data and the size it needs: the name is made durable by the directory's sync.
        await file.datasync();
        await rename(temporary, path);
        renamed = true;
        await this.directorySyncs.sync(directory);
        return await then(file);
      } finally {
        await file.close();
      }
    } catch (error) {
      if (!renamed)
        await rm(temporary, { force: true }).catch((cleanup: unknown) => {
          // The write's own failure is what the caller must hear; the stray temporary is never listed.
          (error as Error & { cleanup?: unknown }).cleanup = cleanup;
        });
      throw this.failure(renamed ? 'read back' : 'write', key, error);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const path = this.pathOf(key);
    try {
      return await readFile(path);
    } catch (error) {
      if (MISSING.has(codeOf(error) ?? '')) return null;
      throw this.failure('read', key, error);
    }
  }

  async head(key: string): Promise<{ bytes: number } | null> {
    const path = this.pathOf(key);
    try {
      const stats = await stat(path);
      return stats.isFile() ? { bytes: stats.size } : null;
    } catch (error) {
      if (MISSING.has(codeOf(error) ?? '')) return null;
      throw this.failure('stat', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return;
      throw this.failure('delete', key, error);
    }
  }

  async list(
    prefix: string,
    options: { after?: string; limit: number },
  ): Promise<{ keys: string[]; next?: string }> {
    checkedListPrefix(prefix);
    const limit = checkedLimit(options.limit);
    const after = options.after ?? '';
    // Walked from the deepest directory the prefix names in full; a partial last segment filters.
    const base = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const found: string[] = [];
    try {
      await this.walk(base, prefix, after, found);
    } catch (error) {
      throw this.failure('list', prefix, error);
    }
    // Byte order of ASCII keys: a depth-first walk is not it ('a-b' sorts before 'a/x').
    found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const keys = found.slice(0, limit);
    return found.length > limit ? { keys, next: keys[keys.length - 1] } : { keys };
  }

  /** Adds to `found` every key under directory `base` (a key prefix ending in '/', or '') past `after`. */
  private async walk(base: string, prefix: string, after: string, found: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(base === '' ? this.root : this.pathOf(base.slice(0, -1)), {
        withFileTypes: true,
      });
    } catch (error) {
      // No directory there: no keys under it. The root itself must be a directory if it exists.
      if (codeOf(error) === 'ENOENT' || (base !== '' && MISSING.has(codeOf(error) ?? ''))) return;
      throw error;
    }
    for (const entry of entries) {
      // Temporaries (dotted names) and anything else no key can name are not objects.
      if (!isKeySegment(entry.name)) continue;
      const key = base + entry.name;
      if (entry.isDirectory()) {
        const inside = `${key}/`;
        // Every key inside sorts before `after` when `inside` does and is not a start of it.
        if (inside < after && !after.startsWith(inside)) continue;
        if (!inside.startsWith(prefix) && !prefix.startsWith(inside)) continue;
        await this.walk(inside, prefix, after, found);
      } else if (entry.isFile() && key.startsWith(prefix) && key > after) {
        found.push(key);
      }
    }
  }

  /** The file of a key, refused unless it resolves inside the root (whatever the key checks said). */
  private pathOf(key: string): string {
    checkedObjectKey(key);
    const path = resolve(this.root, ...key.split('/'));
    const inside = relative(this.root, path);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
      throw new InvalidObjectKeyError('object key', key);
    return path;
  }

  private failure(operation: string, key: string, error: unknown): ObjectStoreError {
    const code = codeOf(error);
    const detail = code ?? (error instanceof Error ? error.message : String(error));
    return new ObjectStoreError(`could not ${operation} ${key} in ${this.location}: ${detail}`, error);
  }
}

/**
 * Opens a new file for writing, making its directory only when it is missing: a store writes many
 * objects into few directories, and a `mkdir` per write would cost every write a round trip.
 */
async function openCreating(path: string, directory: string): Promise<FileHandle> {
  try {
    return await open(path, 'wx+');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    await mkdir(directory, { recursive: true });
    return open(path, 'wx+');
  }
}

/** Makes a rename durable: the directory entry is on disk before the write is reported done. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
