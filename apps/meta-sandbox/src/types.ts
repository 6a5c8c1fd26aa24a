/** Records held by the sandbox store, shaped like the Graph API objects they stand for. */

export type ObjectKind = 'campaign' | 'adset' | 'adimage' | 'adcreative' | 'ad';

interface BaseRecord {
  id: string;
  /** Creation order; drives edge ordering and cursors. Not exposed through the Graph API. */
  seq: number;
  account_id: string;
  name: string;
  created_time: string;
  updated_time: string;
}

export interface CampaignRecord extends BaseRecord {
  kind: 'campaign';
  objective: string;
  status: string;
  special_ad_categories: string[];
  buying_type: 'AUCTION';
  daily_budget?: string;
  lifetime_budget?: string;
  bid_strategy?: string;
}

export interface AdSetRecord extends BaseRecord {
  kind: 'adset';
  campaign_id: string;
  billing_event: string;
  optimization_goal: string;
  targeting: Record<string, unknown>;
  status: string;
  daily_budget?: string;
  lifetime_budget?: string;
  bid_amount?: number;
  bid_strategy?: string;
  start_time?: string;
  end_time?: string;
}

export interface AdImageRecord extends BaseRecord {
  kind: 'adimage';
  hash: string;
  url: string;
  status: 'ACTIVE';
  bytes: Buffer;
  width?: number;
  height?: number;
}

export interface AdCreativeRecord extends BaseRecord {
  kind: 'adcreative';
  object_story_spec: Record<string, unknown>;
  status: 'ACTIVE';
  image_hash?: string;
}

export interface AdRecord extends BaseRecord {
  kind: 'ad';
  adset_id: string;
  campaign_id: string;
  creative: { id: string };
  status: string;
}

export type AnyRecord = CampaignRecord | AdSetRecord | AdImageRecord | AdCreativeRecord | AdRecord;

export type RecordOf<K extends ObjectKind> = Extract<AnyRecord, { kind: K }>;

/** Two or more objects of one type sharing a name under the same parent. */
export interface DuplicateGroup {
  kind: ObjectKind;
  parentId: string;
  name: string;
  ids: string[];
}

export type FaultKind = 'rateLimit' | 'transient500' | 'hang' | 'commitThenDrop' | 'drop';

export const FAULT_KINDS: readonly FaultKind[] = [
  'rateLimit',
  'transient500',
  'hang',
  'commitThenDrop',
  'drop',
];

/** Forces `kind` on the next `times` (default 1) calls whose path matches. */
export interface FailNextRule {
  /** Regex tested against the request path, e.g. `/v21.0/act_1/campaigns`. */
  path: string | RegExp;
  kind: FaultKind;
  /** Only match this HTTP method (case-insensitive). */
  method?: string;
  times?: number;
}

export interface RateLimitConfig {
  /** After this many accepted calls ... */
  every: number;
  /** ... this many calls are rejected with a rate-limit error. */
  burst: number;
  /** Error codes used for rejections, cycled (default `[17]`). */
  codes?: number[];
  /** Reported as `estimated_time_to_regain_access` (minutes) while throttled (default 0). */
  regainAccessMinutes?: number;
}

export interface FaultConfig {
  rateLimit?: RateLimitConfig;
  latencyMs?: { min: number; max: number };
  hangProbability?: number;
  transient500Probability?: number;
  /** POST creates only: the object is created, then the socket is destroyed without a response. */
  commitThenDropProbability?: number;
  failNext?: FailNextRule[];
}
