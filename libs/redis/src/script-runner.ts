import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

export interface ScriptDefinition {
  /** File name without `.lua`, also the command name registered on the connection. */
  name: string;
  numberOfKeys: number;
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Loads `.lua` files once per connection with `defineCommand` (EVALSHA, falling back to EVAL after a
 * SCRIPT FLUSH or restart) and runs them. Every script call in Vigil goes through `run`, which is
 * also where tests observe the keys of each call.
 */
export class ScriptRunner {
  private readonly defined = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly directory: string,
    scripts: ScriptDefinition[],
  ) {
    for (const script of scripts) this.define(script);
  }

  private define(script: ScriptDefinition): void {
    const lua = readFileSync(join(this.directory, `${script.name}.lua`), 'utf8');
    this.redis.defineCommand(script.name, { lua, numberOfKeys: script.numberOfKeys });
    this.defined.add(script.name);
  }

  async run<T = unknown>(name: string, keys: string[], args: (string | number)[]): Promise<T> {
    if (!this.defined.has(name)) throw new Error(`Lua script ${name} was not loaded`);
    const command = (this.redis as unknown as Record<string, ScriptCommand>)[name];
    return (await command.call(this.redis, ...keys, ...args)) as T;
  }
}
