import { Injectable } from '@nestjs/common';
import { DomainError } from '@vigil/tasks';
import type { TaskKind } from './task-kind';
import { BUILT_IN_KINDS } from './built-in-kinds';

export class UnknownKindError extends DomainError {
  constructor(
    readonly kind: string,
    readonly known: readonly string[] = [],
  ) {
    super(`unknown task kind "${kind}"${known.length > 0 ? `; the kinds are ${known.join(', ')}` : ''}`);
  }
}

const RULES = ['validateExpected', 'validateArgs', 'atLeastAsStrict', 'atLeast'] as const;

@Injectable()
export class KindRegistry {
  private readonly kinds = new Map<string, TaskKind>();

  constructor() {
    for (const kind of BUILT_IN_KINDS) this.register(kind);
  }

  /** Refuses a kind whose name is taken or whose checks do not declare their criteria's rules (`defineCheck`). */
  register(kind: TaskKind): void {
    if (this.kinds.has(kind.name)) throw new Error(`task kind ${kind.name} is registered twice`);
    for (const [name, check] of Object.entries(kind.checks)) {
      const missing = RULES.filter((rule) => typeof check?.[rule] !== 'function');
      if (typeof check !== 'function' || missing.length > 0)
        throw new Error(
          `task kind ${kind.name}: check ${name} must be declared with defineCheck (missing ${missing.join(', ') || 'the check itself'})`,
        );
    }
    this.kinds.set(kind.name, kind);
  }

  get(name: string): TaskKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new UnknownKindError(name, this.names());
    return kind;
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }
}
