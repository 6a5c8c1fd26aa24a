import type { KindTool, ToolContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adSetAt, campaignAt } from '../input-spec';
import { createMetaClient } from '../meta-client.factory';
import { TOOL_NAMES } from '../plan';
import { stepKeys } from '../step-keys';
import { adSetMismatches, campaignMismatches, READ_FIELDS } from '../verify/compare';
import { campaignIndex, PARAMETERS } from './indexes';
import { requireId } from './outputs';
import { byName, capped } from './read-back.shared';

async function readBackCampaign(
  args: Record<string, unknown>,
  context: ToolContext<CampaignBuildInput>,
): Promise<unknown> {
  const { input, signal } = context;
  const { i } = campaignIndex(args, input);
  const campaignId = requireId(context, stepKeys.campaign(i), TOOL_NAMES.createCampaign, { campaign: i });
  const spec = campaignAt(input, i);
  const client = createMetaClient(context.services);

  const node = await client.getObject(campaignId, READ_FIELDS.campaign, signal);
  const sameName = await client.findByName(input.adAccountId, 'campaigns', spec.name, ['id', 'name'], signal);
  const adSets = byName(
    await client.listEdge(campaignId, 'adsets', { fields: READ_FIELDS.adSet, limit: 500 }, signal),
  );
  const ads = byName(
    await client.listEdge(campaignId, 'ads', { fields: ['id', 'name', 'adset_id'], limit: 500 }, signal),
  );

  const mismatches = campaignMismatches(node, spec);
  const missing: string[] = [];
  const duplicated: string[] = [];
  spec.adSets.forEach((adSet, j) => {
    const found = adSets.get(adSet.name) ?? [];
    if (found.length === 0) missing.push(adSet.name);
    if (found.length > 1) duplicated.push(`${adSet.name} (${found.length} copies)`);
    if (found.length > 0) mismatches.push(...adSetMismatches(found[0], adSetAt(input, i, j), [campaignId]));
  });
  const expectedAds = spec.adSets.flatMap((adSet) => adSet.ads.map((ad) => ad.name));
  const foundAds = expectedAds.filter((name) => ads.has(name)).length;
  const duplicatedAds = expectedAds.filter((name) => (ads.get(name) ?? []).length > 1).length;
  const ok =
    sameName.length === 1 &&
    missing.length + duplicated.length + mismatches.length + duplicatedAds === 0 &&
    foundAds === expectedAds.length;
  return {
    campaignId,
    name: spec.name,
    ok,
    ...(sameName.length > 1 ? { duplicates: sameName.length } : {}),
    adSets: { expected: spec.adSets.length, found: spec.adSets.length - missing.length },
    ads: { expected: expectedAds.length, found: foundAds, duplicated: duplicatedAds },
    missingAdSets: capped(missing),
    duplicatedAdSets: capped(duplicated),
    mismatches: capped(mismatches),
  };
}

/** `read_back_campaign {campaign}`: reads the campaign and its ad sets and ads back from Meta. */
export const readBackCampaignTool: KindTool<CampaignBuildInput> = {
  name: TOOL_NAMES.readBackCampaign,
  description:
    'Reads campaign `campaign` back from Meta with its ad sets and ads and compares them with the input. ' +
    'Returns {ok, adSets:{expected,found}, ads:{expected,found}, missingAdSets, mismatches}. Changes nothing.',
  parameters: PARAMETERS.campaign,
  effect: 'read',
  stepKey: (args, input) => stepKeys.verifyCampaign(campaignIndex(args, input).i),
  execute: readBackCampaign,
};
