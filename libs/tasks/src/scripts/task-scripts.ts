import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, ScriptDefinition, ScriptRunner } from '@vigil/redis';
import { LUA_SOURCES } from '../lua/scripts.generated';
import { storeFullOf } from '../task-errors';

/**
 * Every atomic operation on a task's keys, one `.lua` file each in `../lua` (KEYS and ARGV listed
 * at the top of each), stitched with the shared fragments of `../lua/includes` at build time
 * (scripts/build-lua.mjs). The key counts are declared here, not derived from the files, so that
 * task-scripts.spec.ts can hold each file's header against its loader.
 */
export const TASK_SCRIPT_KEYS = {
  'create-task': 7,
  'transition-task': 22,
  'heartbeat-task': 4,
  'load-slice': 6,
  'record-steps': 'variable',
  'journal-intent': 2,
  'reconcile-journal': 4,
  'resolve-unresolved-write': 4,
  'touch-index': 2,
  'reserve-global-spend': 2,
  'claim-tenant-slot': 4,
  'release-tenant-slot': 4,
  'queue-for-tenant-slot': 3,
  'reserve-task-spend': 1,
  'append-message': 5,
  'claim-update': 6,
  'claim-conversation-message': 1,
  'record-conversation-turn': 4,
  'register-child': 6,
  'forget-task': 26,
  'publish-live-output': 'variable',
  'create-schedule': 3,
  'set-schedule-state': 1,
  'delete-schedule': 5,
  'claim-schedule-fire': 2,
  'record-schedule-run': 3,
  'steer-task': 4,
} as const;

export type TaskScriptName = keyof typeof TASK_SCRIPT_KEYS;

export function taskScriptDefinitions(): ScriptDefinition[] {
  return Object.entries(TASK_SCRIPT_KEYS).map(([name, numberOfKeys]) => {
    const lua = LUA_SOURCES[name];
    if (lua === undefined) throw new Error(`Lua script ${name}.lua is missing: run npm run build`);
    return { name, numberOfKeys, lua };
  });
}

function rejectStoreFull(error: unknown): never {
  throw storeFullOf(error);
}

/** The task scripts, loaded once per connection; every repository of this lib runs them here. */
@Injectable()
export class TaskScripts {
  private readonly runner: ScriptRunner;

  constructor(@Inject(REDIS) redis: Redis) {
    this.runner = new ScriptRunner(redis, taskScriptDefinitions());
  }

  /** `run` for a call with a long list of string arguments (ScriptRunner.runMany). */
  runMany<T = unknown>(name: TaskScriptName, keys: readonly string[], args: readonly string[]): Promise<T> {
    return this.runner.runMany<T>(name, keys, args).catch(rejectStoreFull);
  }

  /** A write refused because Redis is full rejects as StoreFullError (docs/operations.md, "A full Redis"). */
  run<T = unknown>(name: TaskScriptName, keys: readonly string[], args: (string | number)[]): Promise<T> {
    return this.runner.run<T>(name, keys, args).catch(rejectStoreFull);
  }
}
