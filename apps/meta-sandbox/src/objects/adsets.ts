import {
  BID_STRATEGIES,
  BID_STRATEGIES_NEEDING_AMOUNT,
  BILLING_EVENTS,
  CREATE_STATUSES,
  OPTIMIZATION_GOALS,
} from '@vigil/meta-graph';
import { invalidParam, paramRequired } from '../errors';
import {
  asGraphId,
  isPlainObject,
  optionalEnum,
  optionalPositiveInt,
  optionalString,
  requiredEnum,
  requiredJson,
  requiredString,
} from '../params';
import { metaTime } from '../store';
import type { AdSetRecord } from '../types';
import type { CreateContext } from './context';

function optionalTime(params: CreateContext['params'], name: string): string | undefined {
  const value = optionalString(params, name);
  if (value !== undefined && Number.isNaN(Date.parse(value)) && !/^\d+$/.test(value)) {
    throw invalidParam(name, 'must be an ISO-8601 time or a UNIX timestamp');
  }
  return value;
}

/** `POST /act_<id>/adsets`. */
export function createAdSet({ store, accountId, params }: CreateContext): { id: string } {
  const name = requiredString(params, 'name');
  const campaignId = asGraphId(requiredString(params, 'campaign_id'));
  const campaign = campaignId ? store.getKind('campaign', campaignId, accountId) : undefined;
  if (!campaign) throw invalidParam('campaign_id', `campaign does not exist in account act_${accountId}`);
  const billingEvent = requiredEnum(params, 'billing_event', BILLING_EVENTS);
  const optimizationGoal = requiredEnum(params, 'optimization_goal', OPTIMIZATION_GOALS);
  const targeting = requiredJson(params, 'targeting', 'object') as Record<string, unknown>;
  if (!isPlainObject(targeting.geo_locations) || Object.keys(targeting.geo_locations).length === 0) {
    throw invalidParam('targeting', 'geo_locations is required');
  }
  const dailyBudget = optionalPositiveInt(params, 'daily_budget');
  const lifetimeBudget = optionalPositiveInt(params, 'lifetime_budget');
  const campaignBudget = campaign.daily_budget !== undefined || campaign.lifetime_budget !== undefined;
  if (dailyBudget !== undefined && lifetimeBudget !== undefined) {
    throw invalidParam('daily_budget', 'cannot be set together with lifetime_budget');
  }
  if (campaignBudget && (dailyBudget !== undefined || lifetimeBudget !== undefined)) {
    throw invalidParam('daily_budget', 'the campaign already has a budget (campaign budget optimization)');
  }
  if (!campaignBudget && dailyBudget === undefined && lifetimeBudget === undefined) {
    throw paramRequired('daily_budget');
  }
  const endTime = optionalTime(params, 'end_time');
  if (lifetimeBudget !== undefined && endTime === undefined) throw paramRequired('end_time');
  const bidStrategy = optionalEnum(params, 'bid_strategy', BID_STRATEGIES);
  const bidAmount = optionalPositiveInt(params, 'bid_amount');
  if (bidStrategy && BID_STRATEGIES_NEEDING_AMOUNT.includes(bidStrategy) && bidAmount === undefined) {
    throw paramRequired('bid_amount');
  }
  const now = metaTime();
  const record: AdSetRecord = {
    kind: 'adset',
    ...store.nextIdentity(),
    account_id: accountId,
    campaign_id: campaign.id,
    name,
    billing_event: billingEvent,
    optimization_goal: optimizationGoal,
    targeting,
    status: optionalEnum(params, 'status', CREATE_STATUSES) ?? 'PAUSED',
    created_time: now,
    updated_time: now,
  };
  if (dailyBudget !== undefined) record.daily_budget = String(dailyBudget);
  if (lifetimeBudget !== undefined) record.lifetime_budget = String(lifetimeBudget);
  if (bidStrategy !== undefined) record.bid_strategy = bidStrategy;
  if (bidAmount !== undefined) record.bid_amount = bidAmount;
  const startTime = optionalTime(params, 'start_time');
  if (startTime !== undefined) record.start_time = startTime;
  if (endTime !== undefined) record.end_time = endTime;
  store.add(record);
  return { id: record.id };
}
