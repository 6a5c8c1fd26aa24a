import type { KindTool, ToolContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adSetAt, creativeName } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import {
  adMismatches,
  adSetMismatches,
  creativeIdOf,
  creativeMismatches,
  READ_FIELDS,
} from '../verify/compare';
import { adSetIndex, PARAMETERS } from './indexes';
import { requireId } from './outputs';
import { byName, capped, getIfExists } from './read-back.shared';

async function readBackAdSet(
  args: Record<string, unknown>,
  context: ToolContext<CampaignBuildInput>,
): Promise<unknown> {
  const { input, signal } = context;
  const { i, j } = adSetIndex(args, input);
  const campaignId = requireId(context, stepKeys.campaign(i), TOOL_NAMES.createCampaign, { campaign: i });
  const adSetId = requireId(context, stepKeys.adSet(i, j), TOOL_NAMES.createAdSet, { campaign: i, adSet: j });
  const spec = adSetAt(input, i, j);
  const client = createMetaClient(context.services);

  const node = await client.getObject(adSetId, READ_FIELDS.adSet, signal);
  const sameName = await client.findByName(campaignId, 'adsets', spec.name, ['id', 'name'], signal);
  const ads = byName(await client.listEdge(adSetId, 'ads', { fields: READ_FIELDS.ad, limit: 500 }, signal));
  const mismatches = adSetMismatches(node, spec, [campaignId]);
  const missing: string[] = [];
  const duplicated: string[] = [];
  for (const ad of spec.ads) {
    const found = ads.get(ad.name) ?? [];
    if (found.length === 0) missing.push(ad.name);
    if (found.length > 1) duplicated.push(`${ad.name} (${found.length} copies)`);
    if (found.length === 0) continue;
    const creativeId = creativeIdOf(found[0]) ?? '';
    const creative = creativeId ? await getIfExists(client, creativeId, READ_FIELDS.creative, signal) : null;
    mismatches.push(...adMismatches(found[0], [adSetId], creative ? [creative.id] : [], ad.name));
    if (!creative) continue;
    const label = creativeName(ad);
    if (creative.name !== label)
      mismatches.push(`${ad.name} uses creative "${String(creative.name)}", expected "${label}"`);
    mismatches.push(...creativeMismatches(creative, ad, input.pageId, label));
  }
  const expectedNames = new Set(spec.ads.map((ad) => ad.name));
  const unexpected = [...ads.keys()].filter((name) => !expectedNames.has(name));
  const ok = missing.length + duplicated.length + mismatches.length + (sameName.length > 1 ? 1 : 0) === 0;
  return {
    adSetId,
    name: spec.name,
    ok,
    ...(sameName.length > 1 ? { duplicates: sameName.length } : {}),
    ads: { expected: spec.ads.length, found: spec.ads.length - missing.length },
    missingAds: capped(missing),
    duplicatedAds: capped(duplicated),
    unexpectedAds: capped(unexpected),
    mismatches: capped(mismatches),
  };
}

/** `read_back_ad_set {campaign, adSet}`: reads the ad set, its ads and their creatives back from Meta. */
export const readBackAdSetTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.readBackAdSet,
  description:
    'Reads ad set `adSet` of campaign `campaign` back from Meta with its ads and creatives and compares them ' +
    'with the input. Returns {ok, ads:{expected,found}, missingAds, duplicatedAds, mismatches}. Changes nothing.',
  parameters: PARAMETERS.adSet,
  effect: 'read',
  stepKey: (args, input) => {
    const { i, j } = adSetIndex(args, input);
    return stepKeys.verifyAdSet(i, j);
  },
  execute: readBackAdSet,
};
