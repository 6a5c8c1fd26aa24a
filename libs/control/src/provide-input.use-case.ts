import { Inject, Injectable, Optional } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import {
  IllegalTransitionError,
  InvalidTaskInputError,
  TaskLifecycle,
  TaskNotActiveError,
  TaskRecord,
  ReadableTasks,
  TaskRepository,
  WriteJournal,
  type TaskStatus,
} from '@vigil/tasks';
import { NOOP_TRACING, TRACING, VIGIL, type Tracing } from '@vigil/telemetry';
import { applyControl, taskToControl } from './control-refusal';

export const RESOLUTIONS = ['done', 'not_done'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export class ProvideInputDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 10_000,
    description: "the person's answer (or, with resolution done, the id of what the write created)",
    example: 'Use the EU account.',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(10_000)
  text!: string;

  /**
   * For a task waiting on an unresolved write: did the write happen? `done` (the text may carry
   * the id of what it created) or `not_done` (Vigil makes it again).
   */
  @ApiPropertyOptional({
    enum: RESOLUTIONS,
    description: 'for a task waiting on an unresolved write: did the write happen?',
    example: 'done',
  })
  @IsOptional()
  @IsIn(RESOLUTIONS)
  resolution?: Resolution;
}

/** A `resolution` for a task that is not waiting to hear whether a write happened: a 409. */
export class ResolutionNotExpectedError extends IllegalTransitionError {
  constructor(taskId: string, currentStatus: TaskStatus) {
    super(taskId, currentStatus, 'queued');
    this.message =
      currentStatus === 'waiting_on_human'
        ? 'the task is waiting for an answer to its question, not on an unresolved write; send the answer without resolution'
        : `the task is ${currentStatus.replace(/_/g, ' ')}, not waiting on an unresolved write; resolution answers only whether a write happened`;
  }
}

const waitsOnWrite = (task: TaskRecord): boolean =>
  task.status === 'waiting_on_human' && task.statusReason === 'unresolved_write';

/**
 * The human's answer to `request_human_input`, or to whether a write happened
 * (docs/missions.md, "Writes never repeated"): the write is settled first — done with the
 * answer as its result, or its intent cleared to be made again — then the task continues from the
 * same step, and the next slice sees the answer in its prompt.
 */
@Injectable()
export class ProvideInputUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly journal: WriteJournal,
    private readonly reads: ReadableTasks,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NOOP_TRACING,
  ) {}

  async execute(tenantId: string, taskId: string, dto: ProvideInputDto): Promise<TaskRecord> {
    const task = await taskToControl(this.reads, 'input', tenantId, taskId);
    if (dto.resolution !== undefined) {
      if (!waitsOnWrite(task)) throw new ResolutionNotExpectedError(taskId, task.status);
      await applyControl('input', taskId, () =>
        this.journal.resolveUnresolved(taskId, dto.resolution!, dto.text).catch((error: unknown) => {
          // The task moved on since it was read (stopped, or answered and running again): a 409.
          if (error instanceof TaskNotActiveError)
            throw new ResolutionNotExpectedError(taskId, error.currentStatus);
          throw error;
        }),
      );
    } else if (waitsOnWrite(task)) {
      throw new InvalidTaskInputError([
        'resolution is required: the task waits to hear whether a write happened; send resolution "done" (the text may carry its id) or "not_done"',
      ]);
    }
    await applyControl('input', taskId, () =>
      this.lifecycle.answer(task, {
        text: dto.text,
        ...(dto.resolution ? { resolution: dto.resolution } : {}),
      }),
    );
    this.traceWait(task, dto);
    return this.tasks.getForTenant(taskId, tenantId);
  }

  /**
   * The wait, from when the task stopped for a person (its last status change) to this answer, as
   * one span of the attempt that asked (docs/observability.md, "Spans and attributes").
   */
  private traceWait(task: TaskRecord, dto: ProvideInputDto): void {
    if (!this.tracing.enabled) return;
    this.tracing
      .start(
        'vigil.human_wait',
        { taskId: task.id, attempt: task.attempt },
        {
          startTime: task.updatedAt,
          attributes: {
            [VIGIL.taskId]: task.id,
            [VIGIL.attempt]: task.attempt,
            [VIGIL.humanReason]: task.statusReason ?? undefined,
            [VIGIL.humanResolution]: dto.resolution,
            [VIGIL.humanQuestion]: this.tracing.content(task.humanQuestion),
            'vigil.human.answer': this.tracing.content(dto.text),
          },
        },
      )
      .end();
  }
}
