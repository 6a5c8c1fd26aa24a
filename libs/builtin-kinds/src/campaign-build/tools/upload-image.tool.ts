import { ToolArgumentError, type KindTool } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { imageHash } from '@vigil/meta-graph';
import { adAt, imageName } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { adIndex, PARAMETERS, type AdIndex } from './indexes';
import { reconciled } from './outputs';

function imageOf(
  args: Record<string, unknown>,
  input: CampaignBuildInput,
): AdIndex & { bytes: string; name: string } {
  const at = adIndex(args, input);
  const ad = adAt(input, at.i, at.j, at.k);
  if (ad.imageBase64 === undefined) {
    throw new ToolArgumentError(
      `ad {campaign:${at.i}, adSet:${at.j}, ad:${at.k}} uses imageUrl and needs no upload_image; call create_creative`,
    );
  }
  return { ...at, bytes: ad.imageBase64, name: imageName(ad) };
}

/** `upload_image {campaign, adSet, ad}` → `{hash, url}`: the ad's base64 image in the account's library. */
export const uploadImageTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.uploadImage,
  description:
    'Uploads the base64 image of ad `ad` of ad set `adSet` of campaign `campaign` to the ad account. ' +
    'Returns {hash, url}; only for ads with imageBase64.',
  parameters: PARAMETERS.ad,
  effect: 'write',
  stepKey: (args, input) => {
    const { i, j, k } = imageOf(args, input);
    return stepKeys.image(i, j, k);
  },
  async execute(args, context) {
    const image = imageOf(args, context.input);
    const client = createMetaClient(context.services);
    const { hash, url } = await client.uploadImage(
      context.input.adAccountId,
      { name: image.name, bytesBase64: image.bytes },
      context.signal,
    );
    return { hash, url };
  },
  async reconcile(args, context) {
    const image = imageOf(args, context.input);
    const hash = imageHash(image.bytes);
    const client = createMetaClient(context.services);
    const found = await client.findImagesByHash(context.input.adAccountId, [hash], context.signal);
    return reconciled(
      found.filter((node) => node.hash === hash),
      (node) => ({ hash: String(node.hash), url: String(node.url) }),
    );
  },
};
