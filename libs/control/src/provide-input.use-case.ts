import { Injectable } from '@nestjs/common';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { TurnQueue } from '@vigil/queue';
import { TaskRecord, TaskRepository } from '@vigil/tasks';
import { applyControl, CONTROL_FROM } from './control-refusal';

export class ProvideInputDto {
  @IsString()
  @MinLength(1)
  @MaxLength(10_000)
  text!: string;
}

/** The human's answer to `request_human_input`; the next slice sees it in its prompt. */
@Injectable()
export class ProvideInputUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly turns: TurnQueue,
  ) {}

  async execute(tenantId: string, taskId: string, dto: ProvideInputDto): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    const { attempt } = await applyControl('input', taskId, () =>
      this.tasks.transition(task, 'queued', {
        from: [...CONTROL_FROM.input],
        fields: { humanInput: dto.text, humanInputAt: Date.now() },
        eventType: 'task.resumed',
        eventData: { by: 'user', input: true },
      }),
    );
    await this.turns.publish({ taskId, attempt, slice: task.sliceCount + 1, reason: 'resumed' });
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
