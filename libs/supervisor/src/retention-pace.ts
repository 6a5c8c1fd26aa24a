/**
 * The latest expiry a retention sweep takes now (docs/operations.md, "Retention and archives").
 * Archiving is upkeep: while tasks of the shard are active it would take CPU, Redis and disk from
 * them, so it waits for a quiet moment, but never more than `busyLagMs` past a task's expiry. Under
 * load that never ends, tasks leave `busyLagMs` late and at the rate they finish, so Redis holds at
 * most that much more of them; a quiet shard is swept up to now.
 */
export function archiveCutoff(now: number, activeTasks: number, busyLagMs: number): number {
  return activeTasks > 0 ? now - busyLagMs : now;
}
