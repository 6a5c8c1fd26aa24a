import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MODEL_NAMES } from '@vigil/config';
import { MAX_EXIT_CRITERIA } from '@vigil/kinds';

export class ExitCriterionDto {
  @IsString()
  @MaxLength(64)
  check!: string;

  @IsDefined()
  expected!: unknown;

  @IsOptional()
  @IsObject()
  args?: Record<string, unknown>;
}

export class NotifyDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  webhookUrl?: string;
}

export class ScriptedDto {
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) crashAtStep?: number;
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) hangAtStep?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1_000_000) falseFinishAfter?: number;
  @IsOptional() @IsBoolean() forgetProgress?: boolean;
}

export class AgentDto {
  /** The model of the first attempt (default FIRST_MODEL). */
  @IsOptional()
  @IsIn(MODEL_NAMES)
  model?: string;

  /** The model of each retry, in order (default RETRY_POLICY). */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(16)
  @IsIn(MODEL_NAMES, { each: true })
  policy?: string[];

  @IsOptional()
  @ValidateNested()
  @Type(() => ScriptedDto)
  scripted?: ScriptedDto;
}

/** Body of POST /v1/tasks. Unknown fields are refused by the global ValidationPipe. */
export class CreateTaskDto {
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/)
  kind!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  title?: string;

  @IsObject()
  input!: Record<string, unknown>;

  /** Added to the kind's own criteria, or tightening them; never removing or loosening one. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_EXIT_CRITERIA)
  @ValidateNested({ each: true })
  @Type(() => ExitCriterionDto)
  exitCriteria?: ExitCriterionDto[];

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1000)
  budgetUsd?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => NotifyDto)
  notify?: NotifyDto;

  @IsOptional()
  @IsBoolean()
  sandbox?: boolean;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,80}$/)
  parentId?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,80}$/)
  conversationId?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => AgentDto)
  agent?: AgentDto;
}
