import type { TaskKind } from '@vigil/kinds';
import { CampaignBuildInput } from './campaign-build.input';
import { CHECK_NAMES, campaignBuildChecks } from './checks';
import { countAds, countAdSets } from './input-spec';
import { campaignBuildInstructions } from './instructions';
import { campaignBuildPlan } from './plan';
import { campaignBuildTools } from './tools';

export const CAMPAIGN_BUILD_KIND = 'campaign_build';

/**
 * Builds Meta campaigns → ad sets → ads (with images and creatives) from a declarative input, PAUSED.
 * Tools take indexes into the input; exit checks read the result back from the Marketing API.
 */
export const campaignBuildKind: TaskKind<CampaignBuildInput> = {
  name: CAMPAIGN_BUILD_KIND,
  inputClass: CampaignBuildInput,
  totalUnits: (input) => campaignBuildPlan(input).length,
  defaultTitle: (input) => {
    const first = input.campaigns[0]?.name ?? 'campaign';
    const more = input.campaigns.length > 1 ? ` +${input.campaigns.length - 1}` : '';
    return `Build "${first}"${more}: ${countAdSets(input)} ad sets, ${countAds(input)} ads`;
  },
  defaultExitCriteria: (input) => [
    { check: CHECK_NAMES.campaignsExist, expected: input.campaigns.length },
    { check: CHECK_NAMES.adSetsExist, expected: countAdSets(input) },
    { check: CHECK_NAMES.adsAttached, expected: countAds(input) },
    { check: CHECK_NAMES.allObjectsVerified, expected: true },
  ],
  instructions: campaignBuildInstructions,
  scriptedPlan: campaignBuildPlan,
  tools: campaignBuildTools,
  checks: campaignBuildChecks,
};
