import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptRunner } from '@vigil/redis';

/** Return codes of the notifier's scripts (see the header of each `.lua` file). */
export enum NotifyScriptCode {
  NotDue = 0,
  Appended = 1,
  Duplicate = 2,
  NotFound = -1,
  Finished = -7,
  SlotMoved = -8,
  Parked = -9,
  AfterFinal = -10,
  OtherFinal = -11,
}

export function loadNotifyScripts(redis: Redis): ScriptRunner {
  return new ScriptRunner(redis, join(__dirname, 'lua'), [
    { name: 'append-message', numberOfKeys: 5 },
    { name: 'claim-update', numberOfKeys: 6 },
  ]);
}
