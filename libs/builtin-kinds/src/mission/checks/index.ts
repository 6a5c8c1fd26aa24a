import type { ExitCheck } from '@vigil/kinds';
import type { MissionInput } from '../mission.input';
import { artifactExistsCheck } from './artifact-exists.check';
import { childrenCompletedCheck } from './children-completed.check';
import { findingsCountCheck } from './findings-count.check';
import { httpJsonCheck } from './http-json.check';
import { toolResultCheck } from './tool-result.check';

/** The mission's deterministic exit checks (docs/missions.md, "The mission kind"). */
export const MISSION_CHECKS: Record<string, ExitCheck<MissionInput>> = {
  findings_count: findingsCountCheck,
  tool_result: toolResultCheck,
  http_json: httpJsonCheck,
  children_completed: childrenCompletedCheck,
  artifact_exists: artifactExistsCheck,
};
