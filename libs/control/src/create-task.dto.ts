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

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
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
