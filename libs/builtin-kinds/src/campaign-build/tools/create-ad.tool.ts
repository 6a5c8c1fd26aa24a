import type { KindTool, ToolContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adAt } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { adIndex, PARAMETERS } from './indexes';
import { reconciled, requireId } from './outputs';

const adSetId = (context: ToolContext<CampaignBuildInput>, i: number, j: number): string =>
  requireId(context, stepKeys.adSet(i, j), TOOL_NAMES.createAdSet, { campaign: i, adSet: j });

/** `create_ad {campaign, adSet, ad}` → `{id}`: the ad in its ad set, using its creative, PAUSED. */
export const createAdTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.createAd,
  description:
    'Creates ad `ad` of ad set `adSet` of campaign `campaign` (PAUSED) in the ad set made by create_ad_set, ' +
    'using the creative made by create_creative for the same indexes. Returns {id}.',
  parameters: PARAMETERS.ad,
  effect: 'write',
  stepKey: (args, input) => {
    const { i, j, k } = adIndex(args, input);
    return stepKeys.ad(i, j, k);
  },
  async execute(args, context) {
    const { i, j, k } = adIndex(args, context.input);
    const parentId = adSetId(context, i, j);
    const creativeArgs = { campaign: i, adSet: j, ad: k };
    const creativeId = requireId(
      context,
      stepKeys.creative(i, j, k),
      TOOL_NAMES.createCreative,
      creativeArgs,
    );
    const client = createMetaClient(context.services);
    const { id } = await client.createAd(
      context.input.adAccountId,
      { name: adAt(context.input, i, j, k).name, adSetId: parentId, creativeId, status: 'PAUSED' },
      context.signal,
    );
    return { id };
  },
  async reconcile(args, context) {
    const { i, j, k } = adIndex(args, context.input);
    const parentId = adSetId(context, i, j);
    const client = createMetaClient(context.services);
    const name = adAt(context.input, i, j, k).name;
    const matches = await client.findByName(parentId, 'ads', name, ['id', 'name'], context.signal);
    return reconciled(matches, (node) => ({ id: node.id }));
  },
};
