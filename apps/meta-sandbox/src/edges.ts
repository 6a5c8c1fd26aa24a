import { invalidParam, nonexistingField } from './errors';
import { applyFilters, parseFiltering } from './filtering';
import { NODE_TYPES, project } from './fields';
import { paginate, pagingBlock } from './paging';
import type { Params } from './params';
import type { SandboxStore } from './store';
import type { AnyRecord, ObjectKind } from './types';

/** Edge name → object kind, per parent node type. */
const EDGES: Record<'adaccount' | 'campaign' | 'adset', Record<string, ObjectKind>> = {
  adaccount: {
    campaigns: 'campaign',
    adsets: 'adset',
    ads: 'ad',
    adcreatives: 'adcreative',
    adimages: 'adimage',
  },
  campaign: { adsets: 'adset', ads: 'ad' },
  adset: { ads: 'ad' },
};

export interface EdgeParent {
  type: 'adaccount' | 'campaign' | 'adset';
  /** Account digits for `adaccount`, object id otherwise. */
  id: string;
}

function childrenOf(store: SandboxStore, parent: EdgeParent, kind: ObjectKind): AnyRecord[] {
  if (parent.type === 'adaccount') return store.list(kind, (r) => r.account_id === parent.id);
  const key = parent.type === 'campaign' ? 'campaign_id' : 'adset_id';
  return store.list(kind, (r) => (r as unknown as Record<string, unknown>)[key] === parent.id);
}

function parseHashes(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidParam('hashes', 'must be a JSON-encoded array of image hashes');
    }
  }
  if (!Array.isArray(value) || !value.every((h) => typeof h === 'string')) {
    throw invalidParam('hashes', 'must be a JSON-encoded array of image hashes');
  }
  return value as string[];
}

/** `GET /<parent>/<edge>?fields&limit&after&before&filtering[&hashes][&summary]`. */
export function listEdge(
  store: SandboxStore,
  parent: EdgeParent,
  edge: string,
  params: Params,
  requestUrl: URL,
): Record<string, unknown> {
  const kind = EDGES[parent.type][edge];
  if (!kind) throw nonexistingField(edge, NODE_TYPES[parent.type]);
  let records = applyFilters(childrenOf(store, parent, kind), parseFiltering(params.filtering, kind), store);
  if (kind === 'adimage') {
    const hashes = parseHashes(params.hashes);
    if (hashes) records = records.filter((r) => r.kind === 'adimage' && hashes.includes(r.hash));
  }
  const str = (name: string): string | undefined =>
    typeof params[name] === 'string' ? (params[name] as string) : undefined;
  const page = paginate(records, { limit: str('limit'), after: str('after'), before: str('before') });
  const defaults = kind === 'adimage' ? ['id', 'hash'] : ['id'];
  const body: Record<string, unknown> = {
    data: page.items.map((r) => project(r, str('fields'), store, defaults)),
  };
  const paging = pagingBlock(page, requestUrl);
  if (paging) body.paging = paging;
  const summary = str('summary');
  if (summary === 'true' || summary?.split(',').includes('total_count')) {
    body.summary = { total_count: records.length };
  }
  return body;
}
