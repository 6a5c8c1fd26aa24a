import { ScriptRunner } from '@vigil/redis';

/** One Lua script call as ScriptRunner made it: the script's name and the keys it was given. */
export interface ScriptCall {
  name: string;
  keys: readonly string[];
}

/**
 * Lists every script call made through any ScriptRunner from now on (each still runs), until
 * `restore`: how a test sees which keys a call touched and how many calls a burst took.
 */
export function observeScriptCalls(): { calls: ScriptCall[]; restore: () => void } {
  const calls: ScriptCall[] = [];
  const original = Object.getOwnPropertyDescriptor(ScriptRunner.prototype, 'run')!;
  const run = original.value as ScriptRunner['run'];
  ScriptRunner.prototype.run = function (this: ScriptRunner, name, keys, args) {
    calls.push({ name, keys });
    return run.call(this, name, keys, args);
  } as ScriptRunner['run'];
  return { calls, restore: () => Object.defineProperty(ScriptRunner.prototype, 'run', original) };
}
