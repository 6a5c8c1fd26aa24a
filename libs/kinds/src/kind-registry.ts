import { Injectable } from '@nestjs/common';
import { DomainError } from '@vigil/tasks';
import type { TaskKind } from './task-kind';
import { BUILT_IN_KINDS } from './built-in-kinds';

export class UnknownKindError extends DomainError {
  constructor(readonly kind: string) {
    super(`unknown task kind "${kind}"`);
  }
}

@Injectable()
export class KindRegistry {
  private readonly kinds = new Map<string, TaskKind>();

  constructor() {
    for (const kind of BUILT_IN_KINDS) this.register(kind);
  }

  register(kind: TaskKind): void {
    if (this.kinds.has(kind.name)) throw new Error(`task kind ${kind.name} is registered twice`);
    this.kinds.set(kind.name, kind);
  }

  get(name: string): TaskKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new UnknownKindError(name);
    return kind;
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }
}
