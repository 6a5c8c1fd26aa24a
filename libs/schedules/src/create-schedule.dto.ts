import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { CreateTaskDto } from '@vigil/control';
import { OVERLAP_POLICIES, type OverlapPolicy } from './schedule.types';

/** catchUpMs when a schedule names none: a fire up to a minute late still runs. */
export const DEFAULT_CATCH_UP_MS = 60_000;
export const MAX_CATCH_UP_MS = 7 * 86_400_000;

export class CreateScheduleDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'nightly audit' })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  name!: string;

  @ApiProperty({
    maxLength: 120,
    description:
      'when it fires: 5 fields (minute hour day-of-month month weekday), or 6 with leading seconds; at least SCHEDULE_MIN_INTERVAL_MS between two fires',
    example: '0 9 * * 1-5',
  })
  @IsString()
  @MaxLength(120)
  cron!: string;

  @ApiProperty({
    maxLength: 64,
    description: 'the IANA time zone the cron is read in; daylight-saving changes keep the wall-clock time',
    example: 'Europe/Berlin',
  })
  @IsString()
  @MaxLength(64)
  timezone!: string;

  @ApiProperty({
    type: () => CreateTaskDto,
    description: 'the body of POST /v1/tasks each fire creates (no parentId)',
  })
  @IsDefined()
  @ValidateNested()
  @Type(() => CreateTaskDto)
  task!: CreateTaskDto;

  @ApiProperty({
    enum: OVERLAP_POLICIES,
    description:
      'while the task of the fire before is unfinished: skip this fire, allow both, or cancel_previous (stop it, then create)',
    example: 'skip',
  })
  @IsIn(OVERLAP_POLICIES)
  overlap!: OverlapPolicy;

  @ApiPropertyOptional({
    minimum: 1_000,
    maximum: MAX_CATCH_UP_MS,
    default: DEFAULT_CATCH_UP_MS,
    description:
      'fires missed while no Watcher ran: the newest within this many ms runs once when one is back; older ones are recorded as missed',
    example: 20_000,
  })
  @IsOptional()
  @IsInt()
  @Min(1_000)
  @Max(MAX_CATCH_UP_MS)
  catchUpMs?: number;
}
