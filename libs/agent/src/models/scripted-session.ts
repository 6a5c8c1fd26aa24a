export type { JsonSchema, PlanStep } from '@vigil/kinds';

export interface ScriptedMisbehaviourOptions {
  crashAtStep?: number;
  hangAtStep?: number;
  falseFinishAfter?: number;
  forgetProgress?: boolean;
}
