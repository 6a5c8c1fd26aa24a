import { Inject, Injectable } from '@nestjs/common';
import { KindRegistry } from './kind-registry';
import {
  startsChildren,
  type ExitCheck,
  type KindServices,
  type KindTaskRef,
  type KindTool,
  type PlanStep,
  type TaskKind,
} from './task-kind';

/** The services every kind of a process is handed (KindBinder's `services`), as a Nest token. */
export const KIND_SERVICES = Symbol('KIND_SERVICES');

/** What a kind is bound to: the task whose tools, services and checks it supplies. */
export interface BindableTask extends KindTaskRef {
  kind: string;
}

/**
 * A kind bound to one task (docs/kinds.md, "Code kinds"): the one way the Worker, the
 * Watcher's retry publisher and its exit-check runner reach a task's tools, services and checks.
 */
export class BoundKind<Input = unknown> {
  constructor(
    readonly kind: TaskKind<Input>,
    readonly task: KindTaskRef<Input>,
    readonly services: KindServices,
  ) {}

  /**
   * The kind's fixed tools and the task's own (`toolsFor`: a mission's, from the catalog, its allow
   * list checked again on every call). Throws when the task's own cannot be had.
   */
  async tools(): Promise<KindTool<Input>[]> {
    if (!this.kind.toolsFor) return this.kind.tools;
    return [...this.kind.tools, ...(await this.kind.toolsFor(this.task, this.services))];
  }

  /** The check a criterion names; undefined when the kind has none of that name. */
  check(name: string): ExitCheck<Input> | undefined {
    return Object.hasOwn(this.kind.checks, name) ? this.kind.checks[name] : undefined;
  }

  /** The task's agent may start children: declared by the kind (`capabilities.startsChildren`). */
  get startsChildren(): boolean {
    return startsChildren(this.kind);
  }

  /** The plan the kind offers the scripted driver, if it offers one. */
  scriptedPlan(): PlanStep[] | undefined {
    return this.kind.scriptedPlan?.(this.task.input);
  }
}

/** Binds kinds to tasks with the process's one KindServices. */
@Injectable()
export class KindBinder {
  constructor(
    readonly registry: KindRegistry,
    @Inject(KIND_SERVICES) readonly services: KindServices,
  ) {}

  /** Throws UnknownKindError for a kind this process does not know. */
  bind(task: BindableTask): BoundKind {
    const kind = this.registry.get(task.kind);
    return new BoundKind(kind, { id: task.id, tenantId: task.tenantId, input: task.input }, this.services);
  }
}
