import { Injectable } from '@nestjs/common';
import { ConversationStore, MessageLog, TaskRepository } from '@vigil/tasks';
import { assertConversationId } from './conversation-errors';

/** One line of `GET /v1/conversations/:id/messages`. */
export interface ConversationLine {
  /** `user` (the person), `vigil` (a reply, with its route), or `task` (a task's message to the user). */
  from: 'user' | 'vigil' | 'task';
  text: string;
  at: string;
  route?: string;
  taskId?: string;
  /** For task messages: progress, recovery, agent, human_input, control, completed, failed. */
  kind?: string;
  messageId?: string;
}

/** The conversation as the person saw it: their messages, the replies, and the messages of its tasks, in time order. */
@Injectable()
export class ReadConversationUseCase {
  constructor(
    private readonly conversations: ConversationStore,
    private readonly tasks: TaskRepository,
    private readonly messages: MessageLog,
  ) {}

  async execute(tenantId: string, conversationId: string): Promise<{ data: ConversationLine[] }> {
    assertConversationId(conversationId);
    const [entries, taskIds] = await Promise.all([
      this.conversations.entries(tenantId, conversationId),
      this.conversations.taskIds(tenantId, conversationId),
    ]);
    const lines: (ConversationLine & { ms: number })[] = entries.map((entry) => ({
      from: entry.role,
      text: entry.text,
      at: new Date(entry.at).toISOString(),
      ms: entry.at,
      ...(entry.route ? { route: entry.route } : {}),
      ...(entry.taskId ? { taskId: entry.taskId } : {}),
      ...(entry.messageId ? { messageId: entry.messageId } : {}),
    }));
    for (const id of taskIds) {
      const task = await this.tasks.get(id);
      if (!task || task.tenantId !== tenantId) continue;
      for (const message of await this.messages.list(id)) {
        const ms = Date.parse(message.sentAt);
        lines.push({
          from: 'task',
          text: message.text,
          at: message.sentAt,
          ms,
          taskId: id,
          kind: message.kind,
        });
      }
    }
    lines.sort((a, b) => a.ms - b.ms);
    return { data: lines.map(({ ms: _ms, ...line }) => line) };
  }
}
