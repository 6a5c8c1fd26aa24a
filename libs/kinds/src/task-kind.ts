import type { ExitCriterion } from '@vigil/tasks';

/**
 * A task kind is a plugin: its input contract, how much work it is, and how completion is
 * verified. The runtime and the apps only ever talk to kinds through this interface.
 */
export interface TaskKind<Input = unknown> {
  name: string;
  /** class-validator DTO for `input`; unknown fields are rejected. */
  inputClass: new () => object;
  /** Number of work units (tool steps of the plan) when known up front. */
  totalUnits(input: Input): number | null;
  defaultTitle(input: Input): string;
  defaultExitCriteria(input: Input): ExitCriterion[];
  /** Names of the checks this kind can run; exit criteria naming others are refused. */
  checkNames: string[];
}
