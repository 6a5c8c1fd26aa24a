import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';
import { encodeCommand } from './resp-encoding';

/**
 * An EVALSHA whose arguments are already one flat list of strings. ioredis' own script commands
 * copy and flatten their arguments (`[sha, ...args].flat()`) and check each one's type again, which
 * for a call of a thousand arguments or more (record-steps.lua's group commit) costs the Worker
 * more than the call's encoding; this command takes the list as it is, and encodes it into one
 * Buffer (encodeCommand) instead of a string built argument by argument.
 */
class PreparedCommand extends Command {
  constructor(name: 'evalsha' | 'eval', args: string[]) {
    super(name, [], { replyEncoding: 'utf8' });
    this.args = args;
  }

  override toWritable(): Buffer {
    return encodeCommand(this.name, this.args as string[]);
  }
}

/**
 * Runs one script with a large argument list (see PreparedCommand): EVALSHA, and EVAL with the
 * source when the server answers NOSCRIPT (after a restart or SCRIPT FLUSH), as ioredis' scripts do.
 */
export class PreparedScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run<T>(redis: Redis, keys: readonly string[], args: readonly string[]): Promise<T> {
    try {
      return (await redis.sendCommand(new PreparedCommand('evalsha', this.call(this.sha, keys, args)))) as T;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
      return (await redis.sendCommand(new PreparedCommand('eval', this.call(this.lua, keys, args)))) as T;
    }
  }

  /** The command's arguments in one array, copied once: script, key count, keys, arguments. */
  private call(script: string, keys: readonly string[], args: readonly string[]): string[] {
    const call = new Array<string>(2 + keys.length + args.length);
    call[0] = script;
    call[1] = String(keys.length);
    let at = 2;
    for (const key of keys) call[at++] = key;
    for (const arg of args) call[at++] = arg;
    return call;
  }
}
