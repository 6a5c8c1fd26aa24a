import type { RedisKeys } from '@vigil/redis';

/**
 * The keys beside a parent task that keep its children (docs/missions.md, "Child missions").
 * Built on the parent's own task key, so they carry its shard's hash tag, and a child, created on
 * its parent's shard, is registered and ended by single-slot scripts.
 */
export class ChildKeys {
  constructor(private readonly keys: RedisKeys) {}

  /** Every child id, oldest first. */
  all(parentId: string): string {
    return `${this.keys.task(parentId)}:children`;
  }

  /** Children holding one of the parent's MAX_PARALLEL_CHILDREN places (released, not ended). */
  running(parentId: string): string {
    return `${this.keys.task(parentId)}:children:running`;
  }

  /** Children waiting for a place, oldest first. */
  held(parentId: string): string {
    return `${this.keys.task(parentId)}:children:held`;
  }
}
