import type { RunCheck } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { copies, joinDetail, section } from './detail';
import { countResult, readState } from './read-state';

/** `campaigns_exist`: each expected campaign name is found exactly once in the ad account. */
export const campaignsExist: RunCheck<CampaignBuildInput> = async (criterion, context) => {
  const state = await readState(criterion.check, context, 'campaigns');
  const missing: string[] = [];
  const duplicated: string[] = [];
  let once = 0;
  context.input.campaigns.forEach((campaign, i) => {
    const found = state.campaigns[i].length;
    if (found === 0) missing.push(campaign.name);
    else if (found > 1) duplicated.push(copies(campaign.name, found));
    else once += 1;
  });
  const detail = joinDetail(
    [section('missing campaigns', missing), section('duplicated campaigns', duplicated)],
    `all ${once} campaigns found exactly once`,
  );
  return countResult(criterion, once, detail);
};
