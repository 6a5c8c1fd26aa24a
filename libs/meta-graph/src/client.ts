import { createHash } from 'node:crypto';
import { MetaGraphError, MetaPagingError } from './errors';
import { GraphExecutor, type WriteIntent } from './executor';
import type {
  CreateAdInput,
  CreateAdSetInput,
  CreateCampaignInput,
  CreateCreativeInput,
  Edge,
  GraphNode,
  ListEdgeOptions,
  MetaGraphClientOptions,
  UploadImageInput,
  UploadedImage,
} from './types';

/** `act_<digits>` from `act_<digits>` or `<digits>`. */
export function adAccountId(accountId: string): string {
  const digits = accountId.replace(/^act_/, '');
  if (!/^\d+$/.test(digits)) throw new TypeError(`Invalid ad account id: ${accountId}`);
  return `act_${digits}`;
}

/** md5 hex of the decoded bytes: the hash Meta assigns to an uploaded image. */
export function imageHash(bytesBase64: string): string {
  return createHash('md5').update(Buffer.from(bytesBase64, 'base64')).digest('hex');
}

/** Form fields: strings as-is, numbers/booleans stringified, objects/arrays JSON-encoded; undefined dropped. */
function form(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[key] = typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** Typed client for the Marketing API calls the campaign_build task kind makes. */
export class MetaGraphClient {
  private readonly exec: GraphExecutor;

  constructor(options: MetaGraphClientOptions) {
    this.exec = new GraphExecutor(options);
  }

  createCampaign(
    accountId: string,
    input: CreateCampaignInput,
    signal?: AbortSignal,
  ): Promise<{ id: string }> {
    const fields = {
      name: input.name,
      objective: input.objective,
      special_ad_categories: input.specialAdCategories,
      status: input.status ?? 'PAUSED',
      daily_budget: input.dailyBudget,
      lifetime_budget: input.lifetimeBudget,
      bid_strategy: input.bidStrategy,
    };
    return this.create(accountId, 'campaigns', 'createCampaign', input.name, fields, signal);
  }

  createAdSet(accountId: string, input: CreateAdSetInput, signal?: AbortSignal): Promise<{ id: string }> {
    const fields = {
      name: input.name,
      campaign_id: input.campaignId,
      billing_event: input.billingEvent,
      optimization_goal: input.optimizationGoal,
      targeting: input.targeting,
      daily_budget: input.dailyBudget,
      lifetime_budget: input.lifetimeBudget,
      start_time: input.startTime,
      end_time: input.endTime,
      bid_amount: input.bidAmount,
      bid_strategy: input.bidStrategy,
      status: input.status ?? 'PAUSED',
    };
    return this.create(accountId, 'adsets', 'createAdSet', input.name, fields, signal);
  }

  /**
   * Uploads image bytes. Safe to retry after a lost response: identical bytes resolve to the same hash,
   * so this is not treated as a non-idempotent create.
   */
  async uploadImage(
    accountId: string,
    input: UploadImageInput,
    signal?: AbortSignal,
  ): Promise<UploadedImage> {
    const body = await this.exec.call<{ images?: Record<string, Partial<UploadedImage>> }>(
      {
        method: 'POST',
        path: `${adAccountId(accountId)}/adimages`,
        params: form({ name: input.name, bytes: input.bytesBase64 }),
      },
      signal,
    );
    const image = Object.values(body.images ?? {})[0];
    if (!image?.hash || !image.url) throw new MetaGraphError('adimages response carried no image hash');
    return { hash: image.hash, url: image.url };
  }

  createCreative(
    accountId: string,
    input: CreateCreativeInput,
    signal?: AbortSignal,
  ): Promise<{ id: string }> {
    const linkData = {
      link: input.link,
      message: input.message,
      name: input.headline,
      description: input.description,
      image_hash: input.imageHash,
      picture: input.pictureUrl,
      call_to_action: input.callToAction,
    };
    const fields = {
      name: input.name,
      object_story_spec: { page_id: input.pageId, link_data: JSON.parse(JSON.stringify(linkData)) as object },
    };
    return this.create(accountId, 'adcreatives', 'createCreative', input.name, fields, signal);
  }

  createAd(accountId: string, input: CreateAdInput, signal?: AbortSignal): Promise<{ id: string }> {
    const fields = {
      name: input.name,
      adset_id: input.adSetId,
      creative: { creative_id: input.creativeId },
      status: input.status ?? 'PAUSED',
    };
    return this.create(accountId, 'ads', 'createAd', input.name, fields, signal);
  }

  getObject<T extends GraphNode = GraphNode>(id: string, fields: string[], signal?: AbortSignal): Promise<T> {
    return this.exec.call<T>(
      {
        method: 'GET',
        path: encodeURIComponent(id),
        params: fields.length ? { fields: fields.join(',') } : {},
      },
      signal,
    );
  }

  /** Every item of an edge, following `after` cursors until there is no `next` page (bounded by maxPages). */
  async listEdge<T extends GraphNode = GraphNode>(
    parentId: string,
    edge: Edge,
    options: ListEdgeOptions,
    signal?: AbortSignal,
  ): Promise<T[]> {
    const params = form({
      ...options.params,
      fields: options.fields.join(','),
      filtering: options.filtering?.length ? options.filtering : undefined,
      limit: options.limit,
    });
    const items: T[] = [];
    const seen = new Set<string>();
    for (let page = 0; page < this.exec.opts.maxPages; page += 1) {
      type EdgePage = { data?: T[]; paging?: { cursors?: { after?: string }; next?: string } };
      const body = await this.exec.call<EdgePage>(
        { method: 'GET', path: `${parentId}/${edge}`, params },
        signal,
      );
      items.push(...(body.data ?? []));
      const after = body.paging?.cursors?.after;
      if (!body.paging?.next || !body.data?.length) return items;
      if (!after || seen.has(after))
        throw new MetaPagingError(`${parentId}/${edge}: paging cursor did not advance`);
      seen.add(after);
      params.after = after;
    }
    throw new MetaPagingError(`${parentId}/${edge}: more than ${this.exec.opts.maxPages} pages`);
  }

  /** All objects on an edge named exactly `name` (used to reconcile a create whose result was lost). */
  async findByName<T extends GraphNode = GraphNode>(
    parentId: string,
    edge: Edge,
    name: string,
    fields: string[] = ['id', 'name'],
    signal?: AbortSignal,
  ): Promise<T[]> {
    const wanted = fields.includes('name') ? fields : [...fields, 'name'];
    const found = await this.listEdge<T>(
      parentId,
      edge,
      { fields: wanted, filtering: [{ field: 'name', operator: 'EQUAL', value: name }] },
      signal,
    );
    return found.filter((node) => node.name === name);
  }

  /** Images of an ad account with the given hashes (reconciles uploads by content). */
  findImagesByHash(accountId: string, hashes: string[], signal?: AbortSignal): Promise<GraphNode[]> {
    return this.listEdge(
      adAccountId(accountId),
      'adimages',
      { fields: ['hash', 'url', 'name'], params: { hashes } },
      signal,
    );
  }

  private create(
    accountId: string,
    edge: Edge,
    operation: string,
    name: string,
    fields: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ id: string }> {
    const parentId = adAccountId(accountId);
    const write: WriteIntent = { operation, parentId, name };
    return this.exec.call<{ id: string }>(
      { method: 'POST', path: `${parentId}/${edge}`, params: form(fields), write },
      signal,
    );
  }
}
