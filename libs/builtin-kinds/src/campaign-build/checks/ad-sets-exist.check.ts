import type { RunCheck } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adSetLabel, adSetRefs } from '../input-spec';
import { copies, joinDetail, section } from './detail';
import { countResult, readState } from './read-state';

/** `ad_sets_exist`: each expected ad set name is found under its campaign. */
export const adSetsExist: RunCheck<CampaignBuildInput> = async (criterion, context) => {
  const { input } = context;
  const state = await readState(criterion.check, context, 'adSets');
  const missingCampaigns = input.campaigns
    .filter((_, i) => state.campaigns[i].length === 0)
    .map((c) => c.name);
  const missing: string[] = [];
  const duplicated: string[] = [];
  let found = 0;
  for (const { campaign: i, adSet: j } of adSetRefs(input)) {
    const matches = state.adSets.get(`${i}:${j}`) ?? [];
    if (matches.length === 0) missing.push(adSetLabel(input, i, j));
    else found += 1;
    if (matches.length > 1) duplicated.push(copies(adSetLabel(input, i, j), matches.length));
  }
  const detail = joinDetail(
    [
      section('missing ad sets', missing),
      section('missing campaigns (their ad sets cannot exist)', missingCampaigns),
      section('duplicated ad sets', duplicated),
    ],
    `all ${found} ad sets found under their campaigns`,
  );
  return countResult(criterion, found, detail);
};
