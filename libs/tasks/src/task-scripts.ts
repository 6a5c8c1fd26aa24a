import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptRunner } from '@vigil/redis';

/** Return codes shared by the task scripts (see the header of each `.lua` file). */
export enum TaskScriptCode {
  Applied = 0,
  NotFound = -1,
  NotAllowed = -2,
  StaleAttempt = -3,
  StatusMismatch = -4,
  IdempotencyConflict = -5,
  NotActive = -6,
  Created = 1,
  Existing = 2,
}

export function loadTaskScripts(redis: Redis): ScriptRunner {
  return new ScriptRunner(redis, join(__dirname, 'lua'), [
    { name: 'create-task', numberOfKeys: 7 },
    { name: 'transition-task', numberOfKeys: 16 },
    { name: 'heartbeat-task', numberOfKeys: 3 },
  ]);
}
