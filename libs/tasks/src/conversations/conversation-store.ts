import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ConversationClaimCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';

/** One line of a conversation: what the person wrote, or what Vigil answered and by which route. */
export interface ConversationEntry {
  role: 'user' | 'vigil';
  text: string;
  at: number;
  messageId?: string;
  route?: 'simple' | 'tools' | 'mission';
  intent?: string;
  taskId?: string;
  /** `model` when ROUTER_MODEL routed the message, `rules` when the documented fallback did. */
  decidedBy?: 'model' | 'rules';
}

export type MessageClaim =
  { state: 'claimed' } | { state: 'duplicate'; reply: ConversationEntry } | { state: 'pending' };

export interface ConversationTurn {
  user: ConversationEntry;
  reply: ConversationEntry;
  messageId?: string;
  /** The mission this turn started, and whether it becomes the conversation's active one. */
  startedTaskId?: string;
  active?: boolean;
}

/** How long a claimed message id may stay in processing before another request may take it over. */
const CLAIM_LEASE_MS = 60_000;
/** Entries a conversation's log keeps (the tasks keep their own messages in full). */
const MAX_LOG_ENTRIES = 2_000;

/**
 * What Vigil keeps about a conversation (docs/conversations.md, "Conversations"): its log, the
 * message ids it has processed, the tasks it started and its active mission. A conversation lives
 * on the shard its tenant and id hash to, so its scripts stay in one Redis Cluster slot.
 */
@Injectable()
export class ConversationStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  async claimMessage(
    tenantId: string,
    conversationId: string,
    messageId: string,
    now = Date.now(),
  ): Promise<MessageClaim> {
    const [code, reply] = await this.scripts.run<[number, string]>(
      'claim-conversation-message',
      [this.key(tenantId, conversationId, 'seen')],
      [messageId, now, CLAIM_LEASE_MS],
    );
    if (code === ConversationClaimCode.Duplicate) return { state: 'duplicate', reply: JSON.parse(reply) };
    if (code === ConversationClaimCode.Pending) return { state: 'pending' };
    return { state: 'claimed' };
  }

  /** Gives a claimed message id back after its processing was refused, so it may be sent again. */
  async releaseMessage(tenantId: string, conversationId: string, messageId: string): Promise<void> {
    await this.redis.hdel(this.key(tenantId, conversationId, 'seen'), messageId);
  }

  async recordTurn(
    tenantId: string,
    conversationId: string,
    turn: ConversationTurn,
    now = Date.now(),
  ): Promise<void> {
    await this.scripts.run(
      'record-conversation-turn',
      ['log', 'seen', 'tasks', 'state'].map((part) => this.key(tenantId, conversationId, part)),
      [
        JSON.stringify(turn.user),
        JSON.stringify(turn.reply),
        turn.messageId ?? '',
        turn.startedTaskId ?? '',
        now,
        turn.active ? '1' : '0',
        MAX_LOG_ENTRIES,
      ],
    );
  }

  async entries(tenantId: string, conversationId: string): Promise<ConversationEntry[]> {
    const raw = await this.redis.lrange(this.key(tenantId, conversationId, 'log'), 0, -1);
    return raw.map((line) => JSON.parse(line) as ConversationEntry);
  }

  /** The tasks this conversation started, oldest first. */
  taskIds(tenantId: string, conversationId: string): Promise<string[]> {
    return this.redis.zrange(this.key(tenantId, conversationId, 'tasks'), '0', '-1');
  }

  async activeTaskId(tenantId: string, conversationId: string): Promise<string | null> {
    return this.redis.hget(this.key(tenantId, conversationId, 'state'), 'activeTaskId');
  }

  private key(tenantId: string, conversationId: string, part: string): string {
    const name = `${tenantId}:${conversationId}`;
    return `${this.keys.shardBase(this.keys.shardOf(`conversation:${name}`))}:conversation:${name}:${part}`;
  }
}
