import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, Matches } from 'class-validator';
import {
  IdempotencyConflictError,
  InvalidIdempotencyKeyError,
  MAX_STEER_TEXT,
  ReadableTasks,
  SteeringLog,
  SteerNotAllowedError,
  TaskNotFoundError,
  type SteerInstruction,
} from '@vigil/tasks';

export class SteerTaskDto {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_STEER_TEXT,
    description: 'the instruction, in plain words; the agent reads it at its next model call',
    example: 'Skip the EU sites.',
  })
  @IsString()
  @MaxLength(MAX_STEER_TEXT)
  // Something to read: not empty, not only spaces.
  @Matches(/\S/, { message: 'text must not be empty' })
  text!: string;
}

/** An instruction as the API answers it (docs/api.md, "Steering"). */
export interface SteerView {
  id: string;
  taskId: string;
  text: string;
  at: string;
  /** How many steps the task had recorded when it was given. */
  afterStep: number;
  /** The task's status when it was given. */
  taskStatus: string;
  /** When the agent reads it: at its next model call, or when the paused or waiting task resumes. */
  applies: 'next_model_call' | 'on_resume';
}

export function toSteerView(taskId: string, given: SteerInstruction): SteerView {
  return {
    id: given.id,
    taskId,
    text: given.text,
    at: new Date(given.at).toISOString(),
    afterStep: given.afterStep,
    taskStatus: given.status,
    applies:
      given.status === 'paused' || given.status === 'waiting_on_human' ? 'on_resume' : 'next_model_call',
  };
}

/**
 * Steers a task while it runs (docs/api.md, "Steering"): the instruction is recorded in the task's
 * history and announced (`task.steered`), and the agent reads it at its next model call and in every
 * later slice and retry. A finished task refuses (409 with its status, an archived one too). With an
 * Idempotency-Key the instruction's id derives from the key, so a repeat records nothing new.
 */
@Injectable()
export class SteerTaskUseCase {
  constructor(
    private readonly steering: SteeringLog,
    private readonly reads: ReadableTasks,
  ) {}

  async execute(
    tenantId: string,
    taskId: string,
    dto: SteerTaskDto,
    idempotencyKey?: string,
  ): Promise<{ instruction: SteerInstruction; created: boolean }> {
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey))
      throw new InvalidIdempotencyKeyError();
    const id = idempotencyKey
      ? `st_${createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 24)}`
      : `st_${randomUUID().replace(/-/g, '')}`;
    const text = dto.text.trim();
    try {
      const given = await this.steering.give(tenantId, taskId, { id, text });
      if (!given.created && given.instruction.text !== text)
        throw new IdempotencyConflictError(idempotencyKey!);
      return given;
    } catch (error) {
      if (!(error instanceof TaskNotFoundError)) throw error;
      // Not in Redis: another tenant's or no task (404, from the read), or one archived after it finished (409).
      const { task } = await this.reads.find(tenantId, taskId);
      throw new SteerNotAllowedError(taskId, task.status);
    }
  }
}
