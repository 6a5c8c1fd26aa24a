import { CREATE_STATUSES } from '@vigil/meta-graph';
import { invalidParam } from '../errors';
import { asGraphId, optionalEnum, requiredJson, requiredString } from '../params';
import { metaTime } from '../store';
import type { AdRecord } from '../types';
import type { CreateContext } from './context';

/** `POST /act_<id>/ads` referencing an existing ad set and creative (`creative={"creative_id": ...}`). */
export function createAd({ store, accountId, params }: CreateContext): { id: string } {
  const name = requiredString(params, 'name');
  const adsetId = asGraphId(requiredString(params, 'adset_id'));
  const adset = adsetId ? store.getKind('adset', adsetId, accountId) : undefined;
  if (!adset) throw invalidParam('adset_id', `ad set does not exist in account act_${accountId}`);
  const creative = requiredJson(params, 'creative', 'object') as Record<string, unknown>;
  const creativeId = asGraphId(creative.creative_id);
  if (!creativeId) throw invalidParam('creative', 'creative_id is required');
  if (!store.getKind('adcreative', creativeId, accountId)) {
    throw invalidParam('creative', `creative ${creativeId} does not exist in account act_${accountId}`);
  }
  const now = metaTime();
  const record: AdRecord = {
    kind: 'ad',
    ...store.nextIdentity(),
    account_id: accountId,
    adset_id: adset.id,
    campaign_id: adset.campaign_id,
    name,
    creative: { id: creativeId },
    status: optionalEnum(params, 'status', CREATE_STATUSES) ?? 'PAUSED',
    created_time: now,
    updated_time: now,
  };
  store.add(record);
  return { id: record.id };
}
