import { invalidParam, nonexistingField } from './errors';
import { isPlainObject } from './params';
import type { SandboxStore } from './store';
import type { AnyRecord, ObjectKind } from './types';

/** Node type names Meta reports in field errors. */
export const NODE_TYPES: Record<ObjectKind | 'adaccount', string> = {
  campaign: 'AdCampaignGroup',
  adset: 'AdCampaign',
  ad: 'Adgroup',
  adcreative: 'AdCreative',
  adimage: 'AdImage',
  adaccount: 'AdAccount',
};

const COMMON = ['id', 'name', 'account_id'];
const LIFECYCLE = ['status', 'configured_status', 'effective_status', 'created_time', 'updated_time'];

/** Readable fields per node type; known fields with no value are omitted from responses, as Meta does. */
export const KNOWN_FIELDS: Record<ObjectKind, readonly string[]> = {
  campaign: [
    ...COMMON,
    ...LIFECYCLE,
    'objective',
    'special_ad_categories',
    'buying_type',
    'daily_budget',
    'lifetime_budget',
    'bid_strategy',
    'start_time',
    'stop_time',
  ],
  adset: [
    ...COMMON,
    ...LIFECYCLE,
    'campaign_id',
    'campaign',
    'billing_event',
    'optimization_goal',
    'targeting',
    'daily_budget',
    'lifetime_budget',
    'bid_amount',
    'bid_strategy',
    'start_time',
    'end_time',
  ],
  ad: [...COMMON, ...LIFECYCLE, 'adset_id', 'campaign_id', 'adset', 'campaign', 'creative'],
  adcreative: [...COMMON, 'status', 'object_story_spec', 'image_hash', 'image_url'],
  adimage: [...COMMON, ...LIFECYCLE, 'hash', 'url', 'url_128', 'permalink_url', 'width', 'height'],
};

/** Splits `a,b{c,d},e` at top-level commas into `{name, sub?}` entries. */
export function parseFields(raw: string | undefined): { name: string; sub?: string }[] {
  if (raw === undefined || raw.trim() === '') return [];
  const out: { name: string; sub?: string }[] = [];
  let depth = 0;
  let start = 0;
  const push = (part: string): void => {
    const trimmed = part.trim();
    if (!trimmed) return;
    const brace = trimmed.indexOf('{');
    if (brace === -1) out.push({ name: trimmed });
    else out.push({ name: trimmed.slice(0, brace).trim(), sub: trimmed.slice(brace + 1, -1) });
  };
  for (let i = 0; i < raw.length; i += 1) {
    if (raw[i] === '{') depth += 1;
    else if (raw[i] === '}') depth -= 1;
    if (depth < 0) throw invalidParam('fields', 'unbalanced braces');
    if (raw[i] === ',' && depth === 0) {
      push(raw.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw invalidParam('fields', 'unbalanced braces');
  push(raw.slice(start));
  return out;
}

function effectiveStatus(record: AnyRecord, store: SandboxStore): string {
  const status = 'status' in record ? record.status : 'ACTIVE';
  if (status !== 'ACTIVE') return status;
  // A paused parent wins, the highest level first.
  const campaignId = record.kind === 'ad' || record.kind === 'adset' ? record.campaign_id : undefined;
  if (campaignId && store.getKind('campaign', campaignId)?.status === 'PAUSED') return 'CAMPAIGN_PAUSED';
  if (record.kind === 'ad' && store.getKind('adset', record.adset_id)?.status === 'PAUSED')
    return 'ADSET_PAUSED';
  return status;
}

/** Value of a (possibly computed) field; undefined when the object has no value for it. */
export function fieldValue(record: AnyRecord, field: string, store: SandboxStore): unknown {
  switch (field) {
    case 'effective_status':
      return effectiveStatus(record, store);
    case 'configured_status':
      return 'status' in record ? record.status : undefined;
    case 'campaign':
      return 'campaign_id' in record ? { id: record.campaign_id } : undefined;
    case 'adset':
      return record.kind === 'ad' ? { id: record.adset_id } : undefined;
    case 'url_128':
    case 'permalink_url':
      return record.kind === 'adimage' ? record.url : undefined;
    case 'image_url':
      return record.kind === 'adcreative' && record.image_hash
        ? store.imageByHash(record.account_id, record.image_hash)?.url
        : undefined;
    case 'seq':
    case 'kind':
    case 'bytes':
      return undefined;
    default:
      return (record as unknown as Record<string, unknown>)[field];
  }
}

function projectValue(value: unknown, sub: string | undefined): unknown {
  if (sub === undefined || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const { name } of parseFields(sub)) if (value[name] !== undefined) out[name] = value[name];
  return out;
}

/** Builds the response for `?fields=...`; `id` is always included. Unknown fields are a code-100 error. */
export function project(
  record: AnyRecord,
  fieldsParam: string | undefined,
  store: SandboxStore,
  defaults: readonly string[] = ['id'],
): Record<string, unknown> {
  const requested = parseFields(fieldsParam);
  const fields = requested.length > 0 ? requested : defaults.map((name) => ({ name, sub: undefined }));
  const out: Record<string, unknown> = { id: record.id };
  for (const { name, sub } of fields) {
    if (!KNOWN_FIELDS[record.kind].includes(name)) throw nonexistingField(name, NODE_TYPES[record.kind]);
    const value = projectValue(fieldValue(record, name, store), sub);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
