import type { CheckResult, ExitCriterion } from '@vigil/tasks';
import type { CheckContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { createMetaClient } from '../meta-client.factory';
import { loadBuildState, type BuildState, type StateDepth } from '../verify/build-state';
import { againstApi } from './unavailable';

export type BuildCheckContext = CheckContext<CampaignBuildInput>;

/** The build as the API reports it (never the action log); API outages become CheckUnavailableError. */
export function readState(check: string, context: BuildCheckContext, depth: StateDepth): Promise<BuildState> {
  const client = createMetaClient(context.services);
  return againstApi(check, () => loadBuildState(client, context.input, depth, context.signal));
}

/** A count check's result: passed when `actual` equals the criterion's expected count. */
export function countResult(criterion: ExitCriterion, actual: number, detail: string): CheckResult {
  const expected = Number(criterion.expected);
  return { check: criterion.check, expected, actual, passed: actual === expected, detail };
}
