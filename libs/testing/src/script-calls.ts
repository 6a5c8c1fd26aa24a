import { ScriptRunner } from '@vigil/redis';

/** One Lua script call as ScriptRunner made it: the script's name, its keys and its arguments. */
export interface ScriptCall {
  name: string;
  keys: readonly string[];
  args: readonly (string | number)[];
}

type Method = 'run' | 'runMany';

/**
 * Lists every script call made through any ScriptRunner from now on (each still runs), until
 * `restore`: how a test sees which keys a call touched and how many calls a burst took.
 */
export function observeScriptCalls(): { calls: ScriptCall[]; restore: () => void } {
  const calls: ScriptCall[] = [];
  const originals = (['run', 'runMany'] as const).map((method: Method) => {
    const original = Object.getOwnPropertyDescriptor(ScriptRunner.prototype, method)!;
    const call = original.value as (
      this: ScriptRunner,
      name: string,
      keys: readonly string[],
      args: never,
    ) => unknown;
    Object.defineProperty(ScriptRunner.prototype, method, {
      ...original,
      value: function (this: ScriptRunner, name: string, keys: readonly string[], args: never) {
        calls.push({ name, keys, args: [...(args as unknown as (string | number)[])] });
        return call.call(this, name, keys, args);
      },
    });
    return [method, original] as const;
  });
  return {
    calls,
    restore: () => {
      for (const [method, original] of originals)
        Object.defineProperty(ScriptRunner.prototype, method, original);
    },
  };
}
