import { BID_STRATEGIES, CREATE_STATUSES, OBJECTIVES, SPECIAL_AD_CATEGORIES } from '@vigil/meta-graph';
import { invalidParam } from '../errors';
import { optionalEnum, optionalPositiveInt, requiredEnum, requiredJson, requiredString } from '../params';
import { metaTime } from '../store';
import type { CampaignRecord } from '../types';
import type { CreateContext } from './context';

/** `POST /act_<id>/campaigns`. */
export function createCampaign({ store, accountId, params }: CreateContext): { id: string } {
  const name = requiredString(params, 'name');
  const objective = requiredEnum(params, 'objective', OBJECTIVES);
  const categories = requiredJson(params, 'special_ad_categories', 'array') as unknown[];
  for (const category of categories) {
    if (typeof category !== 'string' || !(SPECIAL_AD_CATEGORIES as readonly string[]).includes(category)) {
      throw invalidParam('special_ad_categories', `must contain only {${SPECIAL_AD_CATEGORIES.join(', ')}}`);
    }
  }
  const status = optionalEnum(params, 'status', CREATE_STATUSES) ?? 'PAUSED';
  const dailyBudget = optionalPositiveInt(params, 'daily_budget');
  const lifetimeBudget = optionalPositiveInt(params, 'lifetime_budget');
  if (dailyBudget !== undefined && lifetimeBudget !== undefined) {
    throw invalidParam('daily_budget', 'cannot be set together with lifetime_budget');
  }
  const bidStrategy = optionalEnum(params, 'bid_strategy', BID_STRATEGIES);
  const now = metaTime();
  const record: CampaignRecord = {
    kind: 'campaign',
    ...store.nextIdentity(),
    account_id: accountId,
    name,
    objective,
    status,
    special_ad_categories: categories as string[],
    buying_type: 'AUCTION',
    created_time: now,
    updated_time: now,
  };
  if (dailyBudget !== undefined) record.daily_budget = String(dailyBudget);
  if (lifetimeBudget !== undefined) record.lifetime_budget = String(lifetimeBudget);
  if (bidStrategy !== undefined) record.bid_strategy = bidStrategy;
  store.add(record);
  return { id: record.id };
}
