import type { KindTool } from '@vigil/kinds';
import type { BID_STRATEGIES } from '@vigil/meta-graph';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adSetAt } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { adSetIndex, PARAMETERS } from './indexes';
import { reconciled, requireId } from './outputs';

/** Bid strategy every ad set is created with: no bid amount needed. */
const AD_SET_BID_STRATEGY: (typeof BID_STRATEGIES)[number] = 'LOWEST_COST_WITHOUT_CAP';

const campaignId = (i: number, context: Parameters<typeof requireId>[0]): string =>
  requireId(context, stepKeys.campaign(i), TOOL_NAMES.createCampaign, { campaign: i });

/** `create_ad_set {campaign, adSet}` → `{id}`: the ad set under its campaign, PAUSED. */
export const createAdSetTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.createAdSet,
  description:
    'Creates ad set number `adSet` of campaign number `campaign` (PAUSED, daily budget, targeting from the input) ' +
    'under the campaign created by create_campaign. Returns {id}.',
  parameters: PARAMETERS.adSet,
  effect: 'write',
  stepKey: (args, input) => {
    const { i, j } = adSetIndex(args, input);
    return stepKeys.adSet(i, j);
  },
  async execute(args, context) {
    const { i, j } = adSetIndex(args, context.input);
    const spec = adSetAt(context.input, i, j);
    const parentId = campaignId(i, context);
    const client = createMetaClient(context.services);
    const { id } = await client.createAdSet(
      context.input.adAccountId,
      {
        name: spec.name,
        campaignId: parentId,
        dailyBudget: spec.dailyBudgetCents,
        billingEvent: spec.billingEvent,
        optimizationGoal: spec.optimizationGoal,
        targeting: spec.targeting,
        bidStrategy: AD_SET_BID_STRATEGY,
        status: 'PAUSED',
      },
      context.signal,
    );
    return { id };
  },
  async reconcile(args, context) {
    const { i, j } = adSetIndex(args, context.input);
    const parentId = campaignId(i, context);
    const client = createMetaClient(context.services);
    const name = context.input.campaigns[i].adSets[j].name;
    const matches = await client.findByName(parentId, 'adsets', name, ['id', 'name'], context.signal);
    return reconciled(matches, (node) => ({ id: node.id }));
  },
};
