import type { ExitCheck } from '../../task-kind';
import type { CampaignBuildInput } from '../campaign-build.input';
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

export const campaignBuildChecks: Record<string, ExitCheck<CampaignBuildInput>> = {
  [CHECK_NAMES.campaignsExist]: campaignsExist,
  [CHECK_NAMES.adSetsExist]: adSetsExist,
  [CHECK_NAMES.adsAttached]: adsAttached,
  [CHECK_NAMES.allObjectsVerified]: allObjectsVerified,
};

export { campaignsExist, adSetsExist, adsAttached, allObjectsVerified };
