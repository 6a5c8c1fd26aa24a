import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptRunner } from '@vigil/redis';

export function loadAgentScripts(redis: Redis): ScriptRunner {
  return new ScriptRunner(redis, join(__dirname, 'lua'), [
    { name: 'record-step', numberOfKeys: 8 },
    { name: 'journal-intent', numberOfKeys: 2 },
    { name: 'reserve-global-spend', numberOfKeys: 1 },
    { name: 'load-slice', numberOfKeys: 5 },
  ]);
}
