import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { depthProblem, withoutOversizedElements } from '@vigil/kinds';

/** Characters of validation messages the pipe collects before it stops (the error filter cuts further). */
const MAX_MESSAGE_CHARS = 3000;

/**
 * The global ValidationPipe, bounded (docs/api.md, "Requests and errors"): a value nested
 * too deeply is refused before class-transformer recurses into it, the elements of an array over
 * its `@ArrayMaxSize` are not validated one by one, and messages stop at a budget.
 */
export class BoundedValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      maxErrorMessagesLength: MAX_MESSAGE_CHARS,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const subject =
      metadata.type === 'body' ? 'the request body' : `the ${metadata.type} ${metadata.data ?? ''}`;
    const tooDeep = depthProblem(value, subject.trim());
    if (tooDeep) throw new BadRequestException(tooDeep);
    return super.transform(value, metadata);
  }

  protected override validate(
    object: object,
    validatorOptions?: ValidatorOptions,
  ): Promise<ValidationError[]> | ValidationError[] {
    return super.validate(withoutOversizedElements(object), validatorOptions);
  }
}
