import { Injectable } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { TaskRepository } from '@vigil/tasks';
import { CreateTaskDto } from './create-task.dto';
import { CreateTaskUseCase } from './create-task.use-case';

export class ConversationMessageDto {
  @IsString()
  @MinLength(1)
  @MaxLength(10_000)
  text!: string;

  /** Many-step work to run in the background as a mission (a task). */
  @IsOptional()
  @ValidateNested()
  @Type(() => CreateTaskDto)
  task?: CreateTaskDto;
}

export type Route = 'simple' | 'tools' | 'mission';

export interface RoutedReply {
  route: Route;
  reply: string;
  taskId?: string;
}

const TASK_ID = /\btsk_[A-Za-z0-9_-]{8,80}\b/;

/**
 * Routes a chat message. A request for many-step work becomes a mission — a background task
 * with its own exit criteria — instead of running in the request; a question about a task is
 * answered with a tool (a read of its record); anything else gets a direct answer. The routing is
 * deterministic: which route a message takes never depends on a model's mood.
 */
@Injectable()
export class RouteMessageUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly createTask: CreateTaskUseCase,
  ) {}

  static classify(message: ConversationMessageDto): Route {
    if (message.task) return 'mission';
    if (TASK_ID.test(message.text)) return 'tools';
    return 'simple';
  }

  async execute(
    tenantId: string,
    conversationId: string,
    message: ConversationMessageDto,
  ): Promise<RoutedReply> {
    const route = RouteMessageUseCase.classify(message);
    if (route === 'mission') {
      const { task } = await this.createTask.execute(tenantId, { ...message.task!, conversationId });
      return {
        route,
        taskId: task.id,
        reply: `Started "${task.title}" as a background task (${task.id}). You will get progress updates, and the result once it is verified. Follow it at GET /v1/tasks/${task.id}.`,
      };
    }
    if (route === 'tools') {
      const id = TASK_ID.exec(message.text)![0];
      const task = await this.tasks.getForTenant(id, tenantId);
      const progress = task.totalUnits
        ? `${task.completedUnits ?? 0} of ${task.totalUnits} steps are complete`
        : 'progress is not measured in steps';
      return {
        route,
        taskId: id,
        reply: `Task ${id} ("${task.title}") is ${task.status.replace(/_/g, ' ')}: ${progress}, attempt ${task.attempt}.`,
      };
    }
    return {
      route,
      reply:
        'I can run long jobs in the background and keep you posted. Send a message with a `task` ({kind, input}) to start one, or mention a task id to hear how it is doing.',
    };
  }
}
