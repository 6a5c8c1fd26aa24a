import { Body, Controller, Headers, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { SteerTaskDto, SteerTaskUseCase, toSteerView } from '@vigil/control';
import { ApiKeyGuard } from './http/api-key.guard';
import { Tenant } from './http/tenant.decorator';
import { RateLimited } from './limits/rate-limited.decorator';

const STEER_SCHEMA = {
  type: 'object',
  required: ['id', 'taskId', 'text', 'at', 'afterStep', 'taskStatus', 'applies'],
  properties: {
    id: { type: 'string', description: 'the instruction id (derived from Idempotency-Key when one is sent)' },
    taskId: { type: 'string' },
    text: { type: 'string' },
    at: { type: 'string', format: 'date-time', description: 'when it was recorded' },
    afterStep: { type: 'integer', description: 'how many steps the task had recorded when it was given' },
    taskStatus: { type: 'string', description: 'the task’s status when it was given' },
    applies: {
      type: 'string',
      enum: ['next_model_call', 'on_resume'],
      description:
        'when the agent reads it: at its next model call, or when the paused or waiting task resumes',
    },
  },
};

/** Steering a running task (docs/api.md, "Steering"). */
@ApiTags('tasks')
@ApiBearerAuth()
@Controller('v1/tasks')
@UseGuards(ApiKeyGuard)
export class TaskSteeringController {
  constructor(private readonly steerTask: SteerTaskUseCase) {}

  @Post(':id/steer')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Give a running task an instruction; the agent reads it at its next model call',
    description:
      'Recorded in the task’s history, announced as `task.steered`, shown in its messages and report, and given to the model at its next call and in every later slice and retry. A paused or waiting task reads it when it resumes. A finished task answers 409 with its status.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'the same key records the instruction once; a repeat answers 200 with it (`Idempotent-Replayed: true`)',
  })
  @ApiAcceptedResponse({ description: 'the instruction, recorded', schema: STEER_SCHEMA })
  @ApiOkResponse({
    description: 'a repeat of an Idempotency-Key: the instruction recorded the first time',
    schema: STEER_SCHEMA,
  })
  @ApiConflictResponse({
    description: 'the task has finished (currentStatus), or holds the most instructions a task takes',
  })
  @ApiNotFoundResponse({ description: "no such task for this API key's tenant" })
  @RateLimited()
  async steer(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Body() body: SteerTaskDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { instruction, created } = await this.steerTask.execute(tenantId, id, body, idempotencyKey);
    if (!created) response.status(200).setHeader('Idempotent-Replayed', 'true');
    return toSteerView(id, instruction);
  }
}
