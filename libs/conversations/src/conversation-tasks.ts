import type { GetTaskReportUseCase } from '@vigil/control';
import {
  readFinding,
  type ConversationStore,
  type TaskContextStore,
  type TaskRecord,
  type TaskRepository,
} from '@vigil/tasks';
import { findingsReply, listReply, statusReply } from './task-answers';
import type { ReadTool } from './tools-loop';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The tasks of one tenant's conversation, as a message reads them: all of them, its active mission,
 * its latest task, the one a message is about, and the `tools` loop's reads over them. Another
 * tenant's task is never among them.
 */
export class ConversationTasks {
  constructor(
    private readonly conversations: ConversationStore,
    private readonly tasks: TaskRepository,
    private readonly contexts: TaskContextStore,
    private readonly report: GetTaskReportUseCase,
  ) {}

  async all(tenantId: string, conversationId: string): Promise<TaskRecord[]> {
    const ids = await this.conversations.taskIds(tenantId, conversationId);
    return (await Promise.all(ids.map((id) => this.tasks.get(id)))).filter(
      (task): task is TaskRecord => task !== null && task.tenantId === tenantId,
    );
  }

  /** The `tools` loop's reads: the conversation's tasks, each read from its record; the tenant's own only. */
  readTools(tenantId: string, conversationId: string, target: TaskRecord | null): ReadTool[] {
    const taskArg = {
      type: 'object',
      properties: {
        taskId: { type: 'string', description: 'a task id (tsk_…); default: the active mission' },
      },
      additionalProperties: false,
    };
    const taskOf = async (args: Record<string, unknown>): Promise<TaskRecord> => {
      if (typeof args.taskId === 'string' && args.taskId)
        return this.tasks.getForTenant(args.taskId, tenantId);
      if (!target) throw new Error('this conversation has no mission yet; name a task id');
      return target;
    };
    return [
      {
        spec: {
          name: 'list_tasks',
          description: "This conversation's tasks: id, title, status.",
          parameters: { type: 'object', properties: {}, additionalProperties: false },
        },
        run: async () => listReply(await this.all(tenantId, conversationId)),
      },
      {
        spec: {
          name: 'task_status',
          description: "A task's status, progress, attempt and spend.",
          parameters: taskArg,
        },
        run: async (args) => statusReply(await taskOf(args)),
      },
      {
        spec: { name: 'task_findings', description: "The titles of a task's findings.", parameters: taskArg },
        run: async (args) => {
          return this.findings(await taskOf(args));
        },
      },
      {
        spec: {
          name: 'task_report',
          description: "A task's report (Markdown): verification, findings, external writes.",
          parameters: taskArg,
        },
        run: async (args) => this.report.execute(tenantId, (await taskOf(args)).id),
      },
    ];
  }

  /** The titles of a task's findings, as a reply. */
  async findings(task: TaskRecord): Promise<string> {
    const page = await this.contexts.findingsPage(task.id, 100);
    return findingsReply(task, page.data.map(readFinding));
  }

  async activeMission(tenantId: string, conversationId: string): Promise<TaskRecord | null> {
    const id = await this.conversations.activeTaskId(tenantId, conversationId);
    const task = id ? await this.tasks.get(id) : null;
    return task && task.tenantId === tenantId && !TERMINAL.has(task.status) ? task : null;
  }

  /** The conversation's latest task (the tenant's own only): what "my task" means. */
  async latest(tenantId: string, conversationId: string): Promise<TaskRecord | null> {
    const [id] = (await this.conversations.taskIds(tenantId, conversationId)).slice(-1);
    const task = id ? await this.tasks.get(id) : null;
    return task && task.tenantId === tenantId ? task : null;
  }

  /** The task a message is about: the one it names (the tenant's own only), else the active mission, else the latest. */
  async target(tenantId: string, conversationId: string, named?: string): Promise<TaskRecord | null> {
    if (named) return this.tasks.getForTenant(named, tenantId);
    const active = await this.conversations.activeTaskId(tenantId, conversationId);
    const ids = active ? [active] : (await this.conversations.taskIds(tenantId, conversationId)).slice(-1);
    const task = ids[0] ? await this.tasks.get(ids[0]) : null;
    return task && task.tenantId === tenantId ? task : null;
  }
}
