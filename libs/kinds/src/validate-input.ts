import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { InvalidTaskInputError } from '@vigil/tasks';
import type { TaskKind } from './task-kind';

function flatten(errors: ValidationError[], path: string): string[] {
  return errors.flatMap((error) => {
    const field = Array.isArray(error.target) ? `${path}[${error.property}]` : `${path}.${error.property}`;
    const own = Object.values(error.constraints ?? {}).map((message) => {
      const subject = [`property ${error.property}`, error.property].find((s) => message.startsWith(s));
      return subject ? `${field}${message.slice(subject.length)}` : `${field}: ${message}`;
    });
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Validates a kind's input against its DTO; problems name the field as `input.a.b[2].c`. */
export function validateKindInput<Input>(kind: TaskKind<Input>, input: unknown): Input {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidTaskInputError(['input must be an object']);
  }
  const instance = plainToInstance(kind.inputClass, input);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new InvalidTaskInputError(flatten(errors, 'input'));
  return instance as Input;
}
