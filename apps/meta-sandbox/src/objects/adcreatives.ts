import { invalidParam } from '../errors';
import { asGraphId, isHttpUrl, isPlainObject, requiredJson, requiredString } from '../params';
import { metaTime } from '../store';
import type { AdCreativeRecord } from '../types';
import type { CreateContext } from './context';

const SPEC = 'object_story_spec';

/** `POST /act_<id>/adcreatives` with a link-ad `object_story_spec`. */
export function createCreative({ store, accountId, params }: CreateContext): { id: string } {
  const name = requiredString(params, 'name');
  const spec = requiredJson(params, SPEC, 'object') as Record<string, unknown>;
  if (!asGraphId(spec.page_id)) throw invalidParam(SPEC, 'page_id is required and must be a numeric page id');
  const link = spec.link_data;
  if (!isPlainObject(link)) throw invalidParam(SPEC, 'link_data is required');
  if (!isHttpUrl(link.link))
    throw invalidParam(SPEC, 'link_data.link is required and must be an http(s) URL');
  if (link.message !== undefined && typeof link.message !== 'string') {
    throw invalidParam(SPEC, 'link_data.message must be a string');
  }
  const hasHash = link.image_hash !== undefined;
  const hasPicture = link.picture !== undefined;
  if (hasHash === hasPicture)
    throw invalidParam(SPEC, 'link_data needs exactly one of image_hash or picture');
  if (hasHash && (typeof link.image_hash !== 'string' || !store.imageByHash(accountId, link.image_hash))) {
    throw invalidParam(
      SPEC,
      `link_data.image_hash ${String(link.image_hash)} does not exist in account act_${accountId}`,
    );
  }
  if (hasPicture && !isHttpUrl(link.picture))
    throw invalidParam(SPEC, 'link_data.picture must be an http(s) URL');
  const now = metaTime();
  const record: AdCreativeRecord = {
    kind: 'adcreative',
    ...store.nextIdentity(),
    account_id: accountId,
    name,
    object_story_spec: { ...spec, page_id: String(spec.page_id) },
    status: 'ACTIVE',
    created_time: now,
    updated_time: now,
  };
  if (hasHash) record.image_hash = link.image_hash as string;
  store.add(record);
  return { id: record.id };
}
