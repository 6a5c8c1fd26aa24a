import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
import type { ScriptedTurn } from '@vigil/tasks';

export class ExitCriterionDto {
  @ApiProperty({
    maxLength: 64,
    description:
      "a check of the task's kind: all_steps_recorded (noop), tool_result, http_json, findings_count, children_completed, artifact_exists (mission), …",
    example: 'tool_result',
  })
  @IsString()
  @MaxLength(64)
  check!: string;

  @ApiProperty({
    description:
      'what the check must find: a number, a string, an object; the check validates it at creation',
    example: 'Ada Lovelace',
  })
  @IsDefined()
  expected!: unknown;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "the check's arguments",
    example: {
      tool: 'memory.read_graph',
      arguments: {},
      pointer: '/structuredContent/entities/0/name',
    },
  })
  @IsOptional()
  @IsObject()
  args?: Record<string, unknown>;
}

export class NotifyDto {
  @ApiPropertyOptional({
    maxLength: 2048,
    description: 'where every user message about the task is POSTed, signed (default WEBHOOK_DEFAULT_URL)',
    example: 'https://hooks.example.com/vigil',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  webhookUrl?: string;
}

export class ScriptedDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1_000_000,
    description: 'the Worker process exits before this step (once)',
    example: 5,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  crashAtStep?: number;
  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1_000_000,
    description: 'the call at this step hangs until aborted (once)',
    example: 7,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  hangAtStep?: number;
  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1_000_000,
    description: 'claims "done" after this many steps (once)',
    example: 3,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  falseFinishAfter?: number;
  @ApiPropertyOptional({
    description: 'forgets its progress at the next slice (once)',
  })
  @IsOptional()
  @IsBoolean()
  forgetProgress?: boolean;

  /**
   * The offline agent's plan for a kind that offers none of its own (a mission, a code kind):
   * turns, each `{tool, args}` or an array of them (one model turn), tools named as the task names
   * them; a mission checks each turn at creation.
   */
  @ApiPropertyOptional({
    type: 'array',
    maxItems: 1000,
    items: {},
    description:
      "the offline agent's plan for a kind without one (a mission, a code kind): each turn one call {tool, args} or an array of calls",
    example: [
      { tool: 'files.read_file', args: { path: 'docs/launch.md' } },
      { tool: 'finish_task', args: { summary: 'done' } },
    ],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  plan?: ScriptedTurn[];
}

export class AgentDto {
  /** The model of the first attempt (default FIRST_MODEL). */
  @ApiPropertyOptional({
    enum: MODEL_NAMES,
    description: 'the model of the first attempt (default FIRST_MODEL)',
    example: 'opus',
  })
  @IsOptional()
  @IsIn(MODEL_NAMES)
  model?: string;

  /** The model of each retry, in order (default RETRY_POLICY). */
  @ApiPropertyOptional({
    enum: MODEL_NAMES,
    isArray: true,
    minItems: 1,
    maxItems: 16,
    description: 'the model of each retry, in order (default RETRY_POLICY)',
    example: ['opus', 'gemini'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(16)
  @IsIn(MODEL_NAMES, { each: true })
  policy?: string[];

  @ApiPropertyOptional({
    type: () => ScriptedDto,
    description: 'the scripted (offline) agent: misbehaviours on demand, or a plan',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => ScriptedDto)
  scripted?: ScriptedDto;
}

/** Body of POST /v1/tasks. Unknown fields are refused by the global ValidationPipe. */
export class CreateTaskDto {
  @ApiProperty({
    pattern: '^[a-z][a-z0-9_]{0,63}$',
    description: 'noop, campaign_build, mission, or a code kind loaded from VIGIL_KINDS',
    example: 'noop',
  })
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/)
  kind!: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: "default: the kind's own title",
    example: 'forty quick steps',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  title?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "the kind's input, validated by the kind: noop {steps, stepMs?}; campaign_build {adAccountId, pageId, campaigns[{name, objective, adSets[{name, dailyBudgetCents, targeting?, ads[{name, imageUrl | imageBase64, link, message}]}]}]}; mission {goal, tools[], context?}",
    example: { steps: 40, stepMs: 100 },
  })
  @IsObject()
  input!: Record<string, unknown>;

  /** Added to the kind's own criteria, or tightening them; never removing or loosening one. */
  @ApiPropertyOptional({
    type: () => ExitCriterionDto,
    isArray: true,
    maxItems: MAX_EXIT_CRITERIA,
    description:
      "added to the kind's own criteria, or tightening an expected; never removing or loosening one",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_EXIT_CRITERIA)
  @ValidateNested({ each: true })
  @Type(() => ExitCriterionDto)
  exitCriteria?: ExitCriterionDto[];

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1000,
    description: 'USD the task may spend on models (default TASK_BUDGET_USD)',
    example: 5,
  })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1000)
  budgetUsd?: number;

  @ApiPropertyOptional({ type: () => NotifyDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NotifyDto)
  notify?: NotifyDto;

  @ApiPropertyOptional({
    description: 'run against the sandbox of the external system where the kind has one',
  })
  @IsOptional()
  @IsBoolean()
  sandbox?: boolean;

  @ApiPropertyOptional({
    pattern: '^[A-Za-z0-9_-]{1,80}$',
    description: 'make this task a child of another of the tenant’s tasks',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,80}$/)
  parentId?: string;

  @ApiPropertyOptional({
    pattern: '^[A-Za-z0-9_-]{1,80}$',
    description: 'the conversation the task belongs to',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,80}$/)
  conversationId?: string;

  @ApiPropertyOptional({
    type: () => AgentDto,
    description: 'which models run it, and the scripted agent’s options',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => AgentDto)
  agent?: AgentDto;
}
