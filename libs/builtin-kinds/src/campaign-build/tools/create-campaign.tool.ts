import type { KindTool } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { campaignAt } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { campaignIndex, PARAMETERS } from './indexes';
import { reconciled } from './outputs';

/** `create_campaign {campaign}` → `{id}`: the campaign, PAUSED, exactly as named in the input. */
export const createCampaignTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.createCampaign,
  description:
    'Creates campaign number `campaign` of the task input in the ad account (PAUSED). ' +
    'Returns {id}. Call it once per campaign; never again after it succeeded.',
  parameters: PARAMETERS.campaign,
  effect: 'write',
  stepKey: (args, input) => stepKeys.campaign(campaignIndex(args, input).i),
  async execute(args, context) {
    const { i } = campaignIndex(args, context.input);
    const spec = campaignAt(context.input, i);
    const client = createMetaClient(context.services);
    const { id } = await client.createCampaign(
      context.input.adAccountId,
      {
        name: spec.name,
        objective: spec.objective,
        specialAdCategories: spec.specialAdCategories,
        status: 'PAUSED',
      },
      context.signal,
    );
    return { id };
  },
  async reconcile(args, context) {
    const { i } = campaignIndex(args, context.input);
    const client = createMetaClient(context.services);
    const { adAccountId, campaigns } = context.input;
    const matches = await client.findByName(
      adAccountId,
      'campaigns',
      campaigns[i].name,
      ['id', 'name'],
      context.signal,
    );
    return reconciled(matches, (node) => ({ id: node.id }));
  },
};
