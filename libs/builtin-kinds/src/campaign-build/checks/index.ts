import { countRules, flagRules } from '@vigil/kinds';
import { defineCheck, type ExitCheck } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { countAds, countAdSets } from '../input-spec';
import { adSetsExist } from './ad-sets-exist.check';
import { adsAttached } from './ads-attached.check';
import { allObjectsVerified } from './all-objects-verified.check';
import { campaignsExist } from './campaigns-exist.check';

export const CHECK_NAMES = {
  campaignsExist: 'campaigns_exist',
  adSetsExist: 'ad_sets_exist',
  adsAttached: 'ads_attached',
  allObjectsVerified: 'all_objects_verified',
} as const;

/** Every check reads the Meta API, none the runtime's record (CheckRules.reads). */
const AGAINST_THE_API = [] as const;

/** Each check with the rules of its criteria: counts up to what the input asks for, and a flag. */
export const campaignBuildChecks: Record<string, ExitCheck<CampaignBuildInput>> = {
  [CHECK_NAMES.campaignsExist]: defineCheck(
    {
      ...countRules((input: CampaignBuildInput) => input.campaigns.length, 'campaigns'),
      reads: AGAINST_THE_API,
    },
    campaignsExist,
  ),
  [CHECK_NAMES.adSetsExist]: defineCheck(
    { ...countRules((input: CampaignBuildInput) => countAdSets(input), 'ad sets'), reads: AGAINST_THE_API },
    adSetsExist,
  ),
  [CHECK_NAMES.adsAttached]: defineCheck(
    { ...countRules((input: CampaignBuildInput) => countAds(input), 'ads'), reads: AGAINST_THE_API },
    adsAttached,
  ),
  [CHECK_NAMES.allObjectsVerified]: defineCheck(
    { ...flagRules<CampaignBuildInput>(), reads: AGAINST_THE_API },
    allObjectsVerified,
  ),
};

export { campaignsExist, adSetsExist, adsAttached, allObjectsVerified };
