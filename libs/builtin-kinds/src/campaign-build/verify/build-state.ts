import type { CampaignBuildInput } from '../campaign-build.input';
import type { GraphNode, MetaGraphClient } from '@vigil/meta-graph';
import { adRefs, adSetRefs, creativeName } from '../input-spec';
import { READ_FIELDS } from './compare';

/** What Meta holds for each expected object, found by name under its parent (lists: every match). */
export interface BuildState {
  /** By campaign index: campaigns of that name in the account. */
  campaigns: GraphNode[][];
  /** By `i:j`: ad sets of that name under any campaign matched for `i`. */
  adSets: Map<string, GraphNode[]>;
  /** By `i:j:k`: ads of that name under any ad set matched for `i:j`. */
  ads: Map<string, GraphNode[]>;
  /** By creative name: creatives of that name in the account. */
  creatives: Map<string, GraphNode[]>;
  /** Every creative in the account, by id. */
  creativesById: Map<string, GraphNode>;
}

export type StateDepth = 'campaigns' | 'adSets' | 'ads';

const PAGE = 500;
const ids = (nodes: GraphNode[] | undefined): string[] => (nodes ?? []).map((node) => node.id);

async function listUnder(
  client: MetaGraphClient,
  parentIds: string[],
  edge: 'adsets' | 'ads',
  fields: string[],
  signal: AbortSignal,
): Promise<GraphNode[]> {
  const out: GraphNode[] = [];
  for (const parentId of parentIds)
    out.push(...(await client.listEdge(parentId, edge, { fields, limit: PAGE }, signal)));
  return out;
}

/**
 * Reads the build back from the API alone: campaigns by name in the account, then the ad sets and
 * ads under the matched campaigns, then the account's creatives. `depth` stops early for cheaper checks.
 */
export async function loadBuildState(
  client: MetaGraphClient,
  input: CampaignBuildInput,
  depth: StateDepth,
  signal: AbortSignal,
): Promise<BuildState> {
  const state: BuildState = {
    campaigns: [],
    adSets: new Map(),
    ads: new Map(),
    creatives: new Map(),
    creativesById: new Map(),
  };
  for (const campaign of input.campaigns) {
    state.campaigns.push(
      await client.findByName(input.adAccountId, 'campaigns', campaign.name, READ_FIELDS.campaign, signal),
    );
  }
  if (depth === 'campaigns') return state;

  const campaignAdSets = await Promise.all(
    input.campaigns.map((_, i) =>
      listUnder(client, ids(state.campaigns[i]), 'adsets', READ_FIELDS.adSet, signal),
    ),
  );
  for (const ref of adSetRefs(input)) {
    const found = campaignAdSets[ref.campaign].filter((node) => node.name === ref.adSetSpec.name);
    state.adSets.set(`${ref.campaign}:${ref.adSet}`, found);
  }
  if (depth === 'adSets') return state;

  const campaignAds = await Promise.all(
    input.campaigns.map((_, i) => listUnder(client, ids(state.campaigns[i]), 'ads', READ_FIELDS.ad, signal)),
  );
  for (const ref of adRefs(input)) {
    const parents = ids(state.adSets.get(`${ref.campaign}:${ref.adSet}`));
    const found = campaignAds[ref.campaign].filter(
      (node) => node.name === ref.adSpec.name && parents.includes(String(node.adset_id)),
    );
    state.ads.set(`${ref.campaign}:${ref.adSet}:${ref.ad}`, found);
  }

  const creatives = await client.listEdge(
    input.adAccountId,
    'adcreatives',
    { fields: READ_FIELDS.creative, limit: PAGE },
    signal,
  );
  const wanted = new Set(adRefs(input).map((ref) => creativeName(ref.adSpec)));
  for (const node of creatives) {
    state.creativesById.set(node.id, node);
    const name = String(node.name);
    if (wanted.has(name)) state.creatives.set(name, [...(state.creatives.get(name) ?? []), node]);
  }
  return state;
}
