import type { KindTool } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { createAdSetTool } from './create-ad-set.tool';
import { createAdTool } from './create-ad.tool';
import { createCampaignTool } from './create-campaign.tool';
import { createCreativeTool } from './create-creative.tool';
import { readBackAdSetTool } from './read-back-ad-set.tool';
import { readBackCampaignTool } from './read-back-campaign.tool';
import { uploadImageTool } from './upload-image.tool';

/** Every tool of campaign_build, in build order. */
export const campaignBuildTools: KindTool<CampaignBuildInput>[] = [
  createCampaignTool,
  createAdSetTool,
  uploadImageTool,
  createCreativeTool,
  createAdTool,
  readBackAdSetTool,
  readBackCampaignTool,
];

export {
  createCampaignTool,
  createAdSetTool,
  uploadImageTool,
  createCreativeTool,
  createAdTool,
  readBackAdSetTool,
  readBackCampaignTool,
};
