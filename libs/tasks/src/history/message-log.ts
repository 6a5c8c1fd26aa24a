import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { MessageScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import type { UserMessage } from './user-message';

export type AppendOutcome = 'appended' | 'duplicate' | 'after_final' | 'other_final' | 'missing';
export type ClaimOutcome = 'claimed' | 'not_due' | 'parked' | 'finished' | 'missing' | 'slot_moved';

const APPEND: Record<number, AppendOutcome> = {
  [MessageScriptCode.Appended]: 'appended',
  [MessageScriptCode.Duplicate]: 'duplicate',
  [MessageScriptCode.NotFound]: 'missing',
  [MessageScriptCode.AfterFinal]: 'after_final',
  [MessageScriptCode.OtherFinal]: 'other_final',
};

const CLAIM: Record<number, ClaimOutcome> = {
  [MessageScriptCode.Appended]: 'claimed',
  [MessageScriptCode.NotDue]: 'not_due',
  [MessageScriptCode.Parked]: 'parked',
  [MessageScriptCode.Finished]: 'finished',
  [MessageScriptCode.NotFound]: 'missing',
  [MessageScriptCode.SlotMoved]: 'slot_moved',
};

function outcome<T>(table: Record<number, T>, code: number, script: string): T {
  const mapped = table[code];
  if (mapped === undefined) throw new Error(`${script} returned unknown code ${code}`);
  return mapped;
}

/**
 * The task's user-message log (served by GET /v1/tasks/:id/messages): the channel every message
 * takes, and the one place a message is deduplicated. Writes are the two scripts; reads are plain.
 */
@Injectable()
export class MessageLog {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** An event's message; `final` claims the task's one final message. */
  async append(message: UserMessage, final: boolean, outbox: string[], now: number): Promise<AppendOutcome> {
    const shard = this.keys.shardOf(message.taskId);
    const [code] = await this.scripts.run<[number, number]>(
      'append-message',
      [
        this.keys.task(message.taskId),
        this.keys.messages(message.taskId),
        this.keys.messageIndex(message.taskId),
        this.keys.notifyOutbox(shard),
        this.keys.updatesIndex(shard),
      ],
      [message.taskId, message.id, JSON.stringify(message), final ? '1' : '0', now, ...outbox],
    );
    return outcome(APPEND, code, 'append-message');
  }

  /** Claims update slot `slot` of a task; `message` is only stored when the claim succeeds. */
  async claimUpdate(
    taskId: string,
    slot: number,
    message: UserMessage | null,
    outbox: string[],
    options: { now: number; intervalMs: number; streamMaxLen: number },
  ): Promise<ClaimOutcome> {
    const shard = this.keys.shardOf(taskId);
    const [code] = await this.scripts.run<[number, number]>(
      'claim-update',
      [
        this.keys.task(taskId),
        this.keys.updatesIndex(shard),
        this.keys.messages(taskId),
        this.keys.messageIndex(taskId),
        this.keys.events(shard),
        this.keys.notifyOutbox(shard),
      ],
      [
        taskId,
        options.now,
        options.intervalMs,
        slot,
        message?.id ?? '',
        message ? JSON.stringify(message) : '',
        message ? JSON.stringify({ update: slot, message }) : '{}',
        options.streamMaxLen,
        ...(message ? outbox : []),
      ],
    );
    return outcome(CLAIM, code, 'claim-update');
  }

  async find(taskId: string, messageId: string): Promise<UserMessage | null> {
    const position = await this.redis.hget(this.keys.messageIndex(taskId), messageId);
    if (position === null || Number(position) < 0) return null;
    const raw = await this.redis.lindex(this.keys.messages(taskId), Number(position));
    return raw ? (JSON.parse(raw) as UserMessage) : null;
  }

  async list(taskId: string): Promise<UserMessage[]> {
    const raw = await this.redis.lrange(this.keys.messages(taskId), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as UserMessage);
  }
}
