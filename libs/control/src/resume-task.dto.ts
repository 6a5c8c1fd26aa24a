import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';

/** Body of POST /v1/tasks/:id/resume: optional, to raise a limit that paused the task. */
export class ResumeTaskDto {
  @ApiPropertyOptional({
    description: 'A new per-task budget in USD; it must be above what the task has already spent.',
    example: 5,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100_000)
  budgetUsd?: number;
}
