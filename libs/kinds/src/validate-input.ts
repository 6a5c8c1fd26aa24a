import { plainToInstance } from 'class-transformer';
import type { ValidationError } from 'class-validator';
import { InvalidTaskInputError } from '@vigil/tasks';
import { compileSchema, type SchemaCheck } from './schema/schema-validator';
import type { JsonSchema, TaskKind } from './task-kind';
import {
  boundedProblems,
  depthProblem,
  MAX_PROBLEMS,
  validateBounded,
} from './validation/bounded-validation';

/** The problems of `errors` as `input.a.b[2].c …`, collecting at most `max` (the rest are never visited). */
function flatten(errors: ValidationError[], path: string, out: string[], max: number): string[] {
  for (const error of errors) {
    if (out.length > max) break;
    const field = Array.isArray(error.target) ? `${path}[${error.property}]` : `${path}.${error.property}`;
    for (const message of Object.values(error.constraints ?? {})) {
      const subject = [`property ${error.property}`, error.property].find((s) => message.startsWith(s));
      out.push(subject ? `${field}${message.slice(subject.length)}` : `${field}: ${message}`);
    }
    flatten(error.children ?? [], field, out, max);
  }
  return out;
}

/** Each schema compiled once, on its first input. */
const compiled = new WeakMap<JsonSchema, SchemaCheck>();

function schemaCheckOf(schema: JsonSchema, kind: string): SchemaCheck {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = compileSchema(schema, `task kind ${kind}: input`)));
  return check;
}

/**
 * Validates a kind's input against its DTO or its JSON Schema; problems name the field as `input.a.b[2].c`. Bounded
 * (docs/api.md, "Requests and errors"): an array over its limit is refused without
 * validating its elements, and at most `MAX_PROBLEMS` problems are reported.
 */
export function validateKindInput<Input>(kind: TaskKind<Input>, input: unknown): Input {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidTaskInputError(['input must be an object']);
  }
  const tooDeep = depthProblem(input, 'input');
  if (tooDeep) throw new InvalidTaskInputError([tooDeep]);
  if (!kind.inputClass) {
    const problems = schemaCheckOf(kind.inputSchema ?? {}, kind.name)(input, 'input');
    if (problems.length > 0) throw new InvalidTaskInputError(boundedProblems(problems));
    return input as Input;
  }
  const instance = plainToInstance(kind.inputClass, input);
  const errors = validateBounded(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0)
    throw new InvalidTaskInputError(boundedProblems(flatten(errors, 'input', [], MAX_PROBLEMS)));
  return instance as Input;
}
