import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { GlobalSpendGate } from '@vigil/agent';
import {
  CreateTaskDto,
  CreateTaskUseCase,
  GetTaskReportUseCase,
  PauseTaskUseCase,
  ProvideInputUseCase,
  ResumeTaskUseCase,
  SteerTaskUseCase,
  StopTaskUseCase,
} from '@vigil/control';
import {
  ConversationEntry,
  ConversationStore,
  IllegalTransitionError,
  TaskContextStore,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
} from '@vigil/tasks';
import { TOOL_GATEWAY, type ToolGateway } from '@vigil/tools';
import { assertConversationId, isTestConversation, MessageInProgressError } from './conversation-errors';
import type { ConversationMessageDto } from './conversation-message.dto';
import { classifyMessage, type Intent, type Route } from './message-classifier';
import { MESSAGE_ROUTER, type MessageRouter, type RoutedMessage } from './model-router';
import { listReply, myTasksReply, noDefaultsReply, OFFLINE_ANSWER, statusReply } from './task-answers';
import type { ToolsLoop } from './tools-loop';
import { ConversationTasks } from './conversation-tasks';
import { TenantRouterSpend } from './router-spend';

/** Nest token of the `tools` route's model loop (null without a router model). */
export const TOOLS_LOOP = Symbol('TOOLS_LOOP');
const READS: Intent[] = ['status', 'findings', 'report', 'list_tasks'];
/** The whole `tools` loop, every model call and read in it, within this. */
const LOOP_DEADLINE_MS = 30_000;

export interface ConversationReply {
  route: Route;
  reply: string;
  taskId?: string;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** The router model's answer must come within this, or the rules decide. */
const ROUTE_DEADLINE_MS = 10_000;

/**
 * One message of a conversation (docs/conversations.md, "Conversations"): routed (`simple`,
 * `tools`, `mission`), acted on with the same use cases as the API's routes, and recorded with
 * its reply, so a message id is processed once and the conversation reads back in order.
 */
@Injectable()
export class HandleMessageUseCase {
  private readonly logger = new Logger(HandleMessageUseCase.name);
  private readonly conversationTasks: ConversationTasks;

  constructor(
    private readonly conversations: ConversationStore,
    private readonly tasks: TaskRepository,
    private readonly contexts: TaskContextStore,
    private readonly lifecycle: TaskLifecycle,
    private readonly create: CreateTaskUseCase,
    private readonly stop: StopTaskUseCase,
    private readonly pause: PauseTaskUseCase,
    private readonly resume: ResumeTaskUseCase,
    private readonly input: ProvideInputUseCase,
    private readonly report: GetTaskReportUseCase,
    @Inject(MESSAGE_ROUTER) private readonly router: MessageRouter,
    @Inject(TOOL_GATEWAY) private readonly tools: ToolGateway,
    @Inject(TOOLS_LOOP) private readonly loop: ToolsLoop | null,
    private readonly steer: SteerTaskUseCase,
    /** Pays router and tools-loop model calls from the tenant's day and the global cap. */
    @Optional() private readonly spendGate?: GlobalSpendGate,
  ) {
    this.conversationTasks = new ConversationTasks(conversations, tasks, contexts, report);
  }

  async execute(
    tenantId: string,
    conversationId: string,
    message: ConversationMessageDto,
  ): Promise<ConversationReply> {
    assertConversationId(conversationId);
    const { messageId } = message;
    if (messageId) {
      const claim = await this.conversations.claimMessage(tenantId, conversationId, messageId);
      if (claim.state === 'duplicate') return replyOf(claim.reply);
      if (claim.state === 'pending') throw new MessageInProgressError(messageId);
    }
    const at = Date.now();
    try {
      const { reply, startedTaskId, active } = await this.answer(tenantId, conversationId, message);
      const entry: ConversationEntry = { role: 'vigil', at: Date.now(), ...reply.entry };
      await this.conversations.recordTurn(tenantId, conversationId, {
        user: { role: 'user', text: message.text, at, ...(messageId ? { messageId } : {}) },
        reply: entry,
        messageId,
        startedTaskId,
        active,
      });
      return replyOf(entry);
    } catch (error) {
      // Refused (a 400 or a 409): the same message id may be sent again once it is fixed.
      if (messageId) await this.conversations.releaseMessage(tenantId, conversationId, messageId);
      throw error;
    }
  }

  private async answer(
    tenantId: string,
    conversationId: string,
    message: ConversationMessageDto,
  ): Promise<{
    reply: { entry: Omit<ConversationEntry, 'role' | 'at'> };
    startedTaskId?: string;
    active?: boolean;
  }> {
    if (message.task) return this.startMission(tenantId, conversationId, message, null, { ...message.task });
    const spend = this.spendGate ? new TenantRouterSpend(this.spendGate, tenantId) : undefined;
    let routed = await this.router.route(message.text, AbortSignal.timeout(ROUTE_DEADLINE_MS), spend);
    // "My task" is the conversation's latest task, not its active mission (docs/conversations.md).
    const target = routed.about
      ? await this.conversationTasks.latest(tenantId, conversationId)
      : await this.conversationTasks.target(tenantId, conversationId, routed.taskId);
    // A correction with no mission under way to correct: routed as if the steering rule did not exist.
    if (routed.intent === 'steer' && !steerable(target))
      routed = { ...classifyMessage(message.text, { steering: false }), decidedBy: routed.decidedBy };
    const entry = (route: Route, intent: Intent, text: string, taskId?: string) => ({
      reply: { entry: { route, intent, text, decidedBy: routed.decidedBy, ...(taskId ? { taskId } : {}) } },
    });

    // A person's answer to the question a mission is waiting on: a plain reply, not a control,
    // a question about the tasks or a request for new work (which starts a mission of its own).
    const asked = target?.status === 'waiting_on_human' && target.statusReason === 'human_input';
    if (asked && (routed.intent === 'answer' || routed.intent === 'steer')) {
      await this.input.execute(tenantId, target.id, { text: message.text });
      return entry(
        'tools',
        'resume',
        `Passed your answer to "${target.title}" (${target.id}); it continues.`,
        target.id,
      );
    }
    if (routed.intent === 'steer' && target)
      return entry(
        'tools',
        'steer',
        await this.steerReply(tenantId, conversationId, target, message),
        target.id,
      );
    if (routed.route === 'mission')
      return this.startMission(tenantId, conversationId, message, routed, undefined);
    if (routed.route === 'simple') return entry('simple', 'answer', routed.reply ?? OFFLINE_ANSWER);

    if (this.loop && READS.includes(routed.intent)) {
      const answered = await this.loop
        .answer(
          message.text,
          this.conversationTasks.readTools(tenantId, conversationId, target),
          AbortSignal.timeout(LOOP_DEADLINE_MS),
          spend,
        )
        .catch((error: unknown) => {
          this.logger.warn(
            `tools loop failed, answering from one read instead: ${String(error).slice(0, 200)}`,
          );
          return null;
        });
      // A failed loop falls back to the one deterministic read below.
      if (answered) return entry('tools', routed.intent, answered.text, target?.id);
    }
    if (routed.intent === 'list_tasks') {
      const tasks = await this.conversationTasks.all(tenantId, conversationId);
      return entry('tools', 'list_tasks', routed.about ? myTasksReply(tasks) : listReply(tasks));
    }
    if (!target)
      return entry(
        'tools',
        routed.intent,
        'This conversation has no mission yet. Describe the work and I will start one.',
      );
    switch (routed.intent) {
      case 'stop':
        return entry('tools', 'stop', statusReply(await this.stop.execute(tenantId, target.id)), target.id);
      case 'pause':
        return entry('tools', 'pause', statusReply(await this.pause.execute(tenantId, target.id)), target.id);
      case 'resume':
        return entry(
          'tools',
          'resume',
          statusReply(await this.resume.execute(tenantId, target.id)),
          target.id,
        );
      case 'findings':
        return entry('tools', 'findings', await this.conversationTasks.findings(target), target.id);
      case 'report':
        return entry('tools', 'report', await this.report.execute(tenantId, target.id), target.id);
      default:
        return entry('tools', 'status', statusReply(target), target.id);
    }
  }

  /**
   * A mission from the text and the tenant's conversation defaults (or from an explicit task).
   * Unless the message asks to run alongside, the active mission is paused and archived first:
   * everything kept, resumable by its id.
   */
  private async startMission(
    tenantId: string,
    conversationId: string,
    message: ConversationMessageDto,
    routed: RoutedMessage | null,
    explicit: CreateTaskDto | undefined,
  ) {
    let dto = explicit;
    if (!dto) {
      const defaults = this.tools.conversationDefaults(tenantId);
      if (!defaults)
        return {
          reply: { entry: { route: 'mission' as const, intent: 'mission', text: noDefaultsReply(tenantId) } },
        };
      dto = Object.assign(new CreateTaskDto(), {
        kind: 'mission',
        title: message.text.slice(0, 120),
        input: {
          goal: message.text,
          tools: defaults.tools,
          ...(defaults.evidence ? { evidence: defaults.evidence } : {}),
        },
        ...(defaults.exitCriteria ? { exitCriteria: defaults.exitCriteria } : {}),
        ...(defaults.budgetUsd !== undefined ? { budgetUsd: defaults.budgetUsd } : {}),
        ...(defaults.agent ? { agent: defaults.agent } : {}),
      }) as CreateTaskDto;
    }
    dto.conversationId = conversationId;
    if (isTestConversation(conversationId)) dto.sandbox = true;
    const alongside = routed?.alongside ?? false;
    const previous = alongside ? null : await this.conversationTasks.activeMission(tenantId, conversationId);
    const { task } = await this.create.execute(tenantId, dto);
    const archived = previous ? await this.archive(previous) : false;
    const note = archived
      ? ` The previous mission "${previous!.title}" (${previous!.id}) is paused and archived; resume it by its id.`
      : '';
    return {
      reply: {
        entry: {
          route: 'mission' as const,
          intent: 'mission',
          taskId: task.id,
          ...(routed ? { decidedBy: routed.decidedBy } : {}),
          text: `Started "${task.title}" as a mission (${task.id}). You will hear how it goes every few minutes, and get its verified result.${note}`,
        },
      },
      startedTaskId: task.id,
      active: !alongside || !previous,
    };
  }

  /**
   * A correction of the mission under way becomes an instruction to it (docs/api.md, "Steering"),
   * recorded once per message id.
   */
  private async steerReply(
    tenantId: string,
    conversationId: string,
    target: TaskRecord,
    message: ConversationMessageDto,
  ): Promise<string> {
    const key = message.messageId ? `conversation:${conversationId}:${message.messageId}` : undefined;
    const { instruction } = await this.steer.execute(tenantId, target.id, { text: message.text }, key);
    const when =
      instruction.status === 'paused' || instruction.status === 'waiting_on_human'
        ? `it applies when the task resumes (it is ${instruction.status.replace(/_/g, ' ')})`
        : 'the agent reads it at its next model call';
    return `Passed your instruction to "${target.title}" (${target.id}); ${when}. To start separate work instead, describe it as a new request.`;
  }

  private async archive(task: TaskRecord): Promise<boolean> {
    try {
      await this.lifecycle.archive(task);
    } catch (error) {
      // It ended (or is being verified) meanwhile: nothing to archive. Anything else is an error.
      if (error instanceof IllegalTransitionError) return false;
      throw error;
    }
    return true;
  }
}

/** A mission a correction can steer: not finished, not archived by a newer one. */
function steerable(task: TaskRecord | null): task is TaskRecord {
  return task !== null && !TERMINAL.has(task.status) && !task.archived;
}

function replyOf(entry: ConversationEntry): ConversationReply {
  return {
    route: entry.route ?? 'simple',
    reply: entry.text,
    ...(entry.taskId ? { taskId: entry.taskId } : {}),
  };
}
