/**
 * Values computed once per key and kept, up to a limit: past it everything is dropped and built
 * again on demand. For key-name lists a hot path would otherwise rebuild on every call; a plain
 * lookup and store, with no closure per call.
 */
export class BoundedMemo<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly limit: number) {}

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Stores the value and returns it. */
  set(key: string, value: T): T {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}
