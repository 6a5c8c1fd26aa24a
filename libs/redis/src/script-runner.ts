import type { Redis } from 'ioredis';
import { PreparedScript } from './prepared-script';

export interface ScriptDefinition {
  /** The script's name: its `.lua` file's. */
  name: string;
  /** `variable`: a script over as many keys as a call passes (all in one slot, like any call's). */
  numberOfKeys: number | 'variable';
  /** The script's source, its shared fragments already stitched in. */
  lua: string;
}

/**
 * Runs the scripts, each as a prepared EVALSHA that falls back to EVAL with the source when the
 * server answers NOSCRIPT (a new server, a restart, SCRIPT FLUSH): see PreparedScript. Every
 * script call in Vigil goes through `run` or `runMany`, which is also where tests observe the keys
 * of each call.
 */
export class ScriptRunner {
  private readonly prepared = new Map<string, PreparedScript>();
  /** Each script's declared key count; `variable` (`runMany`): a call passes as many as it has. */
  private readonly keyCounts = new Map<string, number | 'variable'>();

  constructor(
    private readonly redis: Redis,
    scripts: ScriptDefinition[],
  ) {
    for (const script of scripts) {
      this.prepared.set(script.name, new PreparedScript(script.lua));
      this.keyCounts.set(script.name, script.numberOfKeys);
    }
  }

  /**
   * A call of a script over as many keys as it is given, with a long list of string arguments
   * (see PreparedScript): what the group commit of steps sends.
   */
  runMany<T = unknown>(name: string, keys: readonly string[], args: readonly string[]): Promise<T> {
    const script = this.keyCounts.get(name) === 'variable' ? this.prepared.get(name) : undefined;
    if (!script)
      return Promise.reject(new Error(`Lua script ${name} was not loaded as a variable-key script`));
    return script.run<T>(this.redis, keys, args);
  }

  /**
   * One call of a script. Sent as a prepared EVALSHA rather than through the command ioredis
   * defines: that one copies and flattens the arguments and wraps its promise once more on every
   * call, which a transition or a slice's start pays for nothing.
   */
  run<T = unknown>(name: string, keys: readonly string[], args: (string | number)[]): Promise<T> {
    const script = this.prepared.get(name);
    if (!script) return Promise.reject(new Error(`Lua script ${name} was not loaded`));
    const declared = this.keyCounts.get(name);
    if (declared !== 'variable' && declared !== keys.length)
      return Promise.reject(
        new Error(`Lua script ${name} takes ${declared} keys, called with ${keys.length}`),
      );
    const strings = new Array<string>(args.length);
    for (let i = 0; i < args.length; i++) strings[i] = String(args[i]);
    return script.run<T>(this.redis, keys, strings);
  }
}
