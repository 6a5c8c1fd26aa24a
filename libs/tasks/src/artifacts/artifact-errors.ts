import { DomainError } from '../task-errors';

/** An artifact id that cannot be one (not 64 lowercase hex characters): a 400. */
export class InvalidArtifactIdError extends DomainError {
  readonly kind = 'invalid';

  constructor(value: string) {
    super(
      `${JSON.stringify(value.slice(0, 80))} is not an artifact id (the SHA-256 of its bytes, 64 lowercase hex characters)`,
    );
  }
}

/** No such artifact in the task's list, or its bytes are no longer kept: a 404. */
export class ArtifactNotFoundError extends DomainError {
  readonly kind = 'not_found';

  constructor(taskId: string, artifactId: string, why = 'is not one of its artifacts') {
    super(`artifact ${artifactId} of task ${taskId} ${why}`);
  }
}
