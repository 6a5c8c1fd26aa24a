import type { PlanStep } from '@vigil/kinds';
import type { CampaignBuildInput } from './campaign-build.input';
import { stepKeys } from './step-keys';

export const TOOL_NAMES = {
  createCampaign: 'create_campaign',
  createAdSet: 'create_ad_set',
  uploadImage: 'upload_image',
  createCreative: 'create_creative',
  createAd: 'create_ad',
  readBackAdSet: 'read_back_ad_set',
  readBackCampaign: 'read_back_campaign',
} as const;

const T = TOOL_NAMES;

/**
 * The tool calls that complete a build, dependencies first. Per campaign: the campaign, all of its
 * ad sets, then per ad set and ad: image upload (base64 ads only), creative, ad; then read-backs.
 */
export function campaignBuildPlan(input: CampaignBuildInput): PlanStep[] {
  const steps: PlanStep[] = [];
  input.campaigns.forEach((campaign, i) => {
    steps.push({ key: stepKeys.campaign(i), tool: T.createCampaign, args: { campaign: i } });
    campaign.adSets.forEach((_, j) => {
      steps.push({ key: stepKeys.adSet(i, j), tool: T.createAdSet, args: { campaign: i, adSet: j } });
    });
    campaign.adSets.forEach((adSet, j) => {
      adSet.ads.forEach((ad, k) => {
        const args = (): Record<string, number> => ({ campaign: i, adSet: j, ad: k });
        if (ad.imageBase64 !== undefined) {
          steps.push({ key: stepKeys.image(i, j, k), tool: T.uploadImage, args: args() });
        }
        steps.push({ key: stepKeys.creative(i, j, k), tool: T.createCreative, args: args() });
        steps.push({ key: stepKeys.ad(i, j, k), tool: T.createAd, args: args() });
      });
    });
    campaign.adSets.forEach((_, j) => {
      steps.push({ key: stepKeys.verifyAdSet(i, j), tool: T.readBackAdSet, args: { campaign: i, adSet: j } });
    });
    steps.push({ key: stepKeys.verifyCampaign(i), tool: T.readBackCampaign, args: { campaign: i } });
  });
  return steps;
}
