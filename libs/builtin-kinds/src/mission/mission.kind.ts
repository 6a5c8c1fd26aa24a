import type { TaskKind } from '@vigil/kinds';
import { MISSION_CHECKS } from './checks';
import { missionInstructions, missionTitle } from './instructions';
import { validateMission } from './mission.creation';
import { MissionInput } from './mission.input';
import { missionTool } from './mission-tools';

/**
 * Bring your own job (docs/missions.md, "The mission kind"): a goal, the catalog tools the
 * agent may use, and the evidence that proves it finished. Its tools are the tenant's from the
 * catalog, resolved per task; its criteria are the caller's (the evidence rule says which are
 * enough); with `evidence: "findings_only"` its own criterion is that something was found.
 */
export const missionKind: TaskKind<MissionInput> = {
  name: 'mission',
  inputClass: MissionInput,
  totalUnits: () => null,
  defaultTitle: missionTitle,
  defaultExitCriteria: (input) =>
    input.evidence === 'findings_only' ? [{ check: 'findings_count', expected: 1 }] : [],
  instructions: missionInstructions,
  tools: [],
  toolsFor: async (task, services) =>
    (await services.tools.toolsFor(task.tenantId, task.input.tools)).map(missionTool),
  validateForTenant: validateMission,
  checks: MISSION_CHECKS,
  // A mission offers no scripted plan: a scripted run plays the task's agent.scripted.plan.
  capabilities: { startsChildren: true },
};
