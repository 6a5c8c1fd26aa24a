import type { KindTool, ToolContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adAt, creativeName } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { adIndex, PARAMETERS } from './indexes';
import { reconciled, requireHash } from './outputs';

/** The image part of the creative: the uploaded image's hash, or the ad's image URL. */
function imageSource(
  context: ToolContext<CampaignBuildInput>,
  i: number,
  j: number,
  k: number,
): { imageHash: string } | { pictureUrl: string } {
  const ad = adAt(context.input, i, j, k);
  if (ad.imageBase64 === undefined) return { pictureUrl: ad.imageUrl as string };
  const args = { campaign: i, adSet: j, ad: k };
  return { imageHash: requireHash(context, stepKeys.image(i, j, k), TOOL_NAMES.uploadImage, args) };
}

/** `create_creative {campaign, adSet, ad}` → `{id}`: a link-ad creative named `<ad name> · creative`. */
export const createCreativeTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.createCreative,
  description:
    'Creates the creative (page, link, message and image) of ad `ad` of ad set `adSet` of campaign `campaign`. ' +
    'For ads with imageBase64, upload_image must have succeeded first. Returns {id}.',
  parameters: PARAMETERS.ad,
  effect: 'write',
  stepKey: (args, input) => {
    const { i, j, k } = adIndex(args, input);
    return stepKeys.creative(i, j, k);
  },
  async execute(args, context) {
    const { i, j, k } = adIndex(args, context.input);
    const ad = adAt(context.input, i, j, k);
    const image = imageSource(context, i, j, k);
    const client = createMetaClient(context.services);
    const { id } = await client.createCreative(
      context.input.adAccountId,
      { name: creativeName(ad), pageId: context.input.pageId, link: ad.link, message: ad.message, ...image },
      context.signal,
    );
    return { id };
  },
  async reconcile(args, context) {
    const { i, j, k } = adIndex(args, context.input);
    const name = creativeName(adAt(context.input, i, j, k));
    const client = createMetaClient(context.services);
    const matches = await client.findByName(
      context.input.adAccountId,
      'adcreatives',
      name,
      ['id', 'name'],
      context.signal,
    );
    return reconciled(matches, (node) => ({ id: node.id }));
  },
};
