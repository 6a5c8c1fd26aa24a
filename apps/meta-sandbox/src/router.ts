import { listEdge } from './edges';
import { nonexistingField, unknownPath, unsupportedRequest } from './errors';
import { NODE_TYPES, parseFields, project } from './fields';
import { createAd } from './objects/ads';
import { createAdSet } from './objects/adsets';
import { createCreative } from './objects/adcreatives';
import { uploadImage } from './objects/adimages';
import { createCampaign } from './objects/campaigns';
import type { CreateContext } from './objects/context';
import type { Params } from './params';
import type { SandboxStore } from './store';

export interface GraphRequest {
  method: string;
  /** Path with the `/vNN.N` prefix removed, e.g. `/act_1/campaigns`. */
  path: string;
  params: Params;
  url: URL;
}

export interface GraphResult {
  body: unknown;
  /** True when the call created (or, for images, resolved) an object. */
  created: boolean;
}

const CREATES: Record<string, (ctx: CreateContext) => unknown> = {
  campaigns: createCampaign,
  adsets: createAdSet,
  adimages: uploadImage,
  adcreatives: createCreative,
  ads: createAd,
};

/** Strips the optional `/vNN.N` version prefix. */
export function stripVersion(pathname: string): string {
  return pathname.replace(/^\/v\d+\.\d+(?=\/|$)/, '') || '/';
}

/** Account digits for `act_<digits>/...` paths or for the object a path names; used for usage headers. */
export function accountOf(path: string, store: SandboxStore): string | undefined {
  const first = path.split('/').filter(Boolean)[0] ?? '';
  const act = /^act_(\d+)$/.exec(first);
  return act ? act[1] : store.get(first)?.account_id;
}

function accountNode(accountId: string, fields: string | undefined): Record<string, unknown> {
  const node: Record<string, unknown> = {
    id: `act_${accountId}`,
    account_id: accountId,
    name: `Sandbox account ${accountId}`,
    currency: 'USD',
    account_status: 1,
    timezone_name: 'UTC',
  };
  const out: Record<string, unknown> = { id: node.id };
  for (const { name } of parseFields(fields)) {
    if (!(name in node)) throw nonexistingField(name, NODE_TYPES.adaccount);
    out[name] = node[name];
  }
  return out;
}

export function routeGraph(req: GraphRequest, store: SandboxStore, origin: string): GraphResult {
  const segments = req.path.split('/').filter(Boolean);
  const method = req.method.toUpperCase();
  const [node, edge] = segments;
  if (!node) throw unknownPath('/');
  if (segments.length > 2) throw unknownPath(`/${segments.slice(2).join('/')}`);
  if (method !== 'GET' && method !== 'POST') throw unsupportedRequest(method, node);
  const fields = typeof req.params.fields === 'string' ? req.params.fields : undefined;

  const act = /^act_(\d+)$/.exec(node);
  if (act) {
    const accountId = act[1];
    if (method === 'GET') {
      if (!edge) return { body: accountNode(accountId, fields), created: false };
      return {
        body: listEdge(store, { type: 'adaccount', id: accountId }, edge, req.params, req.url),
        created: false,
      };
    }
    const create = edge ? CREATES[edge] : undefined;
    if (!create) throw edge ? unknownPath(`/${edge}`) : unsupportedRequest(method, node);
    return { body: create({ store, accountId, params: req.params, origin }), created: true };
  }

  const record = /^\d+$/.test(node) ? store.get(node) : undefined;
  if (!record || record.kind === 'adimage' || method !== 'GET') throw unsupportedRequest(method, node);
  if (!edge) return { body: project(record, fields, store), created: false };
  if (record.kind !== 'campaign' && record.kind !== 'adset')
    throw nonexistingField(edge, NODE_TYPES[record.kind]);
  return {
    body: listEdge(store, { type: record.kind, id: record.id }, edge, req.params, req.url),
    created: false,
  };
}
