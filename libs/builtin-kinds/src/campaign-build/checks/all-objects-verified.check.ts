import type { RunCheck } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { countAds, countAdSets } from '../input-spec';
import { auditBuild, auditPassed } from '../verify/audit';
import { joinDetail, section } from './detail';
import { readState } from './read-state';

/**
 * `all_objects_verified`: every expected campaign, ad set, creative and ad exists exactly once, with
 * its key fields (objective, budget, parent links, creative link/message/image) matching the input.
 */
export const allObjectsVerified: RunCheck<CampaignBuildInput> = async (criterion, context) => {
  const { input } = context;
  const state = await readState(criterion.check, context, 'ads');
  const audit = auditBuild(input, state);
  const actual = auditPassed(audit);
  const expected = criterion.expected ?? true;
  const ads = countAds(input);
  const detail = joinDetail(
    [
      section('missing campaigns', audit.missing.campaigns),
      section('missing ad sets', audit.missing.adSets),
      section('missing creatives', audit.missing.creatives),
      section('missing ads', audit.missing.ads),
      section('duplicates', audit.duplicated),
      section('mismatches', audit.mismatched),
    ],
    `verified ${input.campaigns.length} campaigns, ${countAdSets(input)} ad sets, ${ads} creatives and ${ads} ads`,
  );
  return { check: criterion.check, expected, actual, passed: actual === expected, detail };
};
