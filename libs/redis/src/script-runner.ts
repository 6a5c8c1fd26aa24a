import type { Redis } from 'ioredis';
import { PreparedScript } from './prepared-script';

export interface ScriptDefinition {
  /** The command name registered on the connection (the `.lua` file's name). */
  name: string;
  /** `variable`: a script over as many keys as a call passes (all in one slot, like any call's). */
  numberOfKeys: number | 'variable';
  /** The script's source, its shared fragments already stitched in. */
  lua: string;
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Loads scripts once per connection with `defineCommand` (EVALSHA, falling back to EVAL after a
 * SCRIPT FLUSH or restart) and runs them. Every script call in Vigil goes through `run`, which is
 * also where tests observe the keys of each call.
 */
export class ScriptRunner {
  private readonly defined = new Set<string>();
  /** The variable-key scripts, each also ready to run with a long argument list (`runMany`). */
  private readonly prepared = new Map<string, PreparedScript>();

  constructor(
    private readonly redis: Redis,
    scripts: ScriptDefinition[],
  ) {
    for (const script of scripts) {
      const variable = script.numberOfKeys === 'variable';
      // Without numberOfKeys, ioredis takes the key count as the call's first argument.
      redis.defineCommand(script.name, {
        lua: script.lua,
        ...(variable ? {} : { numberOfKeys: script.numberOfKeys as number }),
      });
      this.defined.add(script.name);
      if (variable) this.prepared.set(script.name, new PreparedScript(script.lua));
    }
  }

  /**
   * A call of a script over as many keys as it is given, with a long list of string arguments
   * (see PreparedScript): what the group commit of steps sends.
   */
  runMany<T = unknown>(name: string, keys: readonly string[], args: readonly string[]): Promise<T> {
    const script = this.prepared.get(name);
    if (!script)
      return Promise.reject(new Error(`Lua script ${name} was not loaded as a variable-key script`));
    return script.run<T>(this.redis, keys, args);
  }

  run<T = unknown>(name: string, keys: readonly string[], args: (string | number)[]): Promise<T> {
    if (!this.defined.has(name)) return Promise.reject(new Error(`Lua script ${name} was not loaded`));
    const command = (this.redis as unknown as Record<string, ScriptCommand>)[name];
    const counted: readonly (string | number)[] = this.prepared.has(name) ? [keys.length, ...keys] : keys;
    // The command's own promise, not one more async frame around it: this runs on every step.
    return command.apply(this.redis, counted.concat(args)) as Promise<T>;
  }
}
