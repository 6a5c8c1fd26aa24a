import 'reflect-metadata';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';

export const MISSION_LIMITS = {
  goalChars: 20_000,
  tools: 64,
  toolNameChars: 200,
  /** `context` as text, or as an object whose JSON is at most this long. */
  contextChars: 20_000,
} as const;

/** `context` is a string or a JSON object, bounded either way. */
function IsBoundedContext(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isBoundedContext',
      target: target.constructor,
      propertyName,
      options: {
        message: `$property must be a string or an object of at most ${MISSION_LIMITS.contextChars} characters (as JSON)`,
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (typeof value === 'string') return value.length <= MISSION_LIMITS.contextChars;
          if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
          return (JSON.stringify(value) ?? '').length <= MISSION_LIMITS.contextChars;
        },
      },
    });
}

/** `input` of a `mission` task: a goal, the catalog tools it may use, optional context. */
export class MissionInput {
  @IsString()
  @Length(1, MISSION_LIMITS.goalChars)
  @Matches(/\S/, { message: '$property must not be blank' })
  goal!: string;

  /** By server (`files`: all its tools), by `server.tool`, or by HTTP tool name. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MISSION_LIMITS.tools)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, MISSION_LIMITS.toolNameChars, { each: true })
  tools!: string[];

  @IsOptional()
  @IsBoundedContext()
  context?: string | Record<string, unknown>;

  /** The findings are the only evidence: the report says so (no other criterion needed). */
  @IsOptional()
  @IsIn(['findings_only'])
  evidence?: 'findings_only';
}

/** Whether a mission's `tools` entry covers a tool as a plan or a check names it (`files` covers `files.read`). */
export function coversTool(entries: readonly string[], name: string): boolean {
  return entries.some((entry) => entry === name || name.startsWith(`${entry}.`));
}
