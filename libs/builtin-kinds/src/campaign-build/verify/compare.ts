import type { AdSpec } from '../campaign-build.input';
import { imageHash, type GraphNode } from '@vigil/meta-graph';
import type { ResolvedAdSet, ResolvedCampaign } from '../input-spec';

/** Fields read back from Meta, and how a read-back object is compared with the input. */
export const READ_FIELDS = {
  campaign: ['id', 'name', 'objective', 'status', 'special_ad_categories'],
  adSet: ['id', 'name', 'campaign_id', 'daily_budget', 'billing_event', 'optimization_goal', 'status'],
  ad: ['id', 'name', 'adset_id', 'campaign_id', 'status', 'creative{id}'],
  creative: ['id', 'name', 'object_story_spec', 'image_hash'],
};

type Mismatch = string;

function differs(label: string, field: string, actual: unknown, expected: unknown): Mismatch[] {
  const a = actual === undefined || actual === null ? undefined : String(actual);
  return a === String(expected)
    ? []
    : [
        `${label} ${field} is ${a === undefined ? 'missing' : JSON.stringify(a)}, expected ${JSON.stringify(String(expected))}`,
      ];
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** Everything is created PAUSED: an object found ACTIVE would spend money nobody approved. */
const CREATED_STATUS = 'PAUSED';

const sortedList = (value: unknown): string =>
  Array.isArray(value) ? value.map(String).sort().join(',') : String(value ?? '');

export function campaignMismatches(node: GraphNode, spec: ResolvedCampaign, label = spec.name): Mismatch[] {
  return [
    ...differs(label, 'objective', node.objective, spec.objective),
    ...differs(label, 'status', node.status, CREATED_STATUS),
    ...differs(
      label,
      'special_ad_categories',
      sortedList(node.special_ad_categories),
      sortedList(spec.specialAdCategories),
    ),
  ];
}

export function adSetMismatches(
  node: GraphNode,
  spec: ResolvedAdSet,
  campaignIds: string[],
  label = spec.name,
): Mismatch[] {
  const out = [
    ...differs(label, 'daily_budget', node.daily_budget, spec.dailyBudgetCents),
    ...differs(label, 'billing_event', node.billing_event, spec.billingEvent),
    ...differs(label, 'optimization_goal', node.optimization_goal, spec.optimizationGoal),
    ...differs(label, 'status', node.status, CREATED_STATUS),
  ];
  if (!campaignIds.includes(String(node.campaign_id))) {
    out.push(`${label} campaign_id is ${String(node.campaign_id)}, not its campaign's id`);
  }
  return out;
}

/** The creative id an ad points at (`creative{id}`). */
export const creativeIdOf = (ad: GraphNode): string | undefined => {
  const id = record(ad.creative).id;
  return typeof id === 'string' ? id : undefined;
};

export function adMismatches(
  node: GraphNode,
  adSetIds: string[],
  creativeIds: string[],
  label: string,
): Mismatch[] {
  const out: Mismatch[] = differs(label, 'status', node.status, CREATED_STATUS);
  if (!adSetIds.includes(String(node.adset_id)))
    out.push(`${label} adset_id is ${String(node.adset_id)}, not its ad set's id`);
  const creativeId = creativeIdOf(node);
  if (!creativeId || !creativeIds.includes(creativeId)) {
    out.push(`${label} creative is ${creativeId ?? 'missing'}, not its creative's id`);
  }
  return out;
}

export function creativeMismatches(node: GraphNode, ad: AdSpec, pageId: string, label: string): Mismatch[] {
  const spec = record(node.object_story_spec);
  const link = record(spec.link_data);
  const out = [
    ...differs(label, 'page_id', spec.page_id, pageId),
    ...differs(label, 'link', link.link, ad.link),
    ...differs(label, 'message', link.message ?? '', ad.message),
  ];
  if (ad.imageBase64 !== undefined) {
    out.push(...differs(label, 'image_hash', link.image_hash ?? node.image_hash, imageHash(ad.imageBase64)));
  } else {
    out.push(...differs(label, 'picture', link.picture, ad.imageUrl));
  }
  return out;
}
