export { campaignBuildKind, CAMPAIGN_BUILD_KIND } from './campaign-build.kind';
export {
  CampaignBuildInput,
  CampaignSpec,
  AdSetSpec,
  AdSpec,
  CAMPAIGN_BUILD_LIMITS,
  CAMPAIGN_BUILD_DEFAULTS,
} from './campaign-build.input';
export { campaignBuildPlan, TOOL_NAMES as CAMPAIGN_BUILD_TOOLS } from './plan';
export { CHECK_NAMES as CAMPAIGN_BUILD_CHECKS } from './checks';
export { stepKeys as campaignBuildStepKeys } from './step-keys';
export { createMetaClient, SANDBOX_ACCESS_TOKEN } from './meta-client.factory';
