import type { CampaignBuildInput } from './campaign-build.input';
import { countAds, countAdSets } from './input-spec';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The task section of the system prompt: what to build, in which order, and how to finish. */
export function campaignBuildInstructions(input: CampaignBuildInput): string {
  const adSets = countAdSets(input);
  const ads = countAds(input);
  return [
    `Build ${plural(input.campaigns.length, 'campaign')} with ${plural(adSets, 'ad set')} and ${plural(ads, 'ad')}`,
    `in Meta ad account ${input.adAccountId} for page ${input.pageId}, exactly as the task input describes; every object is created PAUSED.`,
    'Every tool takes indexes into the input (campaign, adSet, ad; all 0-based), never names or ids: the tools read names,',
    'budgets, targeting and texts from the input and the ids from the steps that already succeeded.',
    'Work in dependency order: create_campaign for a campaign, then create_ad_set for each of its ad sets, then for each ad',
    'of each ad set upload_image (only when the ad has imageBase64), create_creative and create_ad.',
    'Never repeat a step that already succeeded (its result is in the conversation or the progress summary); if a tool',
    'says an earlier step has not succeeded yet, do that step first.',
    'When everything is created, read it all back: read_back_ad_set for every ad set and read_back_campaign for every',
    'campaign; if a read-back reports missing objects, create only those, and report mismatches or duplicates as they are.',
    'Then call finish_task. The result is verified against the Meta API itself, not against your summary.',
  ].join(' ');
}
