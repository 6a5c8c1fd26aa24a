import type { SleepFn } from './sleep';
import type { CREATE_STATUSES, OBJECTIVES } from './enums';

export interface MetaGraphClientOptions {
  /** Graph base URL including the version, e.g. `http://127.0.0.1:4010/v21.0`. */
  baseUrl: string;
  accessToken: string;
  /** Per-attempt timeout (default 15000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 5). */
  maxRetries?: number;
  /** Base of the exponential backoff (default 200). */
  backoffMs?: number;
  /** Cap on a single computed backoff (default 30000). */
  maxBackoffMs?: number;
  /** Rate-limit backoffs start this many times higher when the server suggests no wait (default 5). */
  rateLimitBackoffFactor?: number;
  /** Cap on a server-suggested rate-limit wait (default 120000). */
  maxRateLimitWaitMs?: number;
  /** Upper bound on pages fetched by listEdge (default 100). */
  maxPages?: number;
  /** When set, every call carries `appsecret_proof` (HMAC-SHA256 of the token), as Meta recommends. */
  appSecret?: string;
  sleep?: SleepFn;
  random?: () => number;
  fetch?: typeof fetch;
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  path: string;
  attempt: number;
  delayMs: number;
  error: Error;
}

export type Objective = (typeof OBJECTIVES)[number];

export type CreateStatus = (typeof CREATE_STATUSES)[number];

/** Meta's error envelope: `{error: {message, type, code, error_subcode?, is_transient?, fbtrace_id}}`. */
export interface GraphErrorBody {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id: string;
}

export type Edge = 'campaigns' | 'adsets' | 'ads' | 'adcreatives' | 'adimages';

export interface CreateCampaignInput {
  name: string;
  objective: Objective;
  /** Pass `[]` when none apply. */
  specialAdCategories: string[];
  status?: CreateStatus;
  dailyBudget?: number;
  lifetimeBudget?: number;
  bidStrategy?: string;
}

export interface GeoLocations {
  countries?: string[];
  regions?: { key: string }[];
  cities?: { key: string; radius?: number; distance_unit?: 'mile' | 'kilometer' }[];
  [key: string]: unknown;
}

export interface Targeting {
  geo_locations: GeoLocations;
  age_min?: number;
  age_max?: number;
  [key: string]: unknown;
}

type AdSetBudget =
  | { dailyBudget: number; lifetimeBudget?: never; endTime?: string }
  | { lifetimeBudget: number; dailyBudget?: never; endTime: string }
  | { dailyBudget?: never; lifetimeBudget?: never; endTime?: string };

export type CreateAdSetInput = {
  name: string;
  campaignId: string;
  billingEvent: string;
  optimizationGoal: string;
  targeting: Targeting;
  status?: CreateStatus;
  bidAmount?: number;
  bidStrategy?: string;
  startTime?: string;
} & AdSetBudget;

export interface UploadImageInput {
  name: string;
  bytesBase64: string;
}

export interface UploadedImage {
  hash: string;
  url: string;
}

export type CreateCreativeInput = {
  name: string;
  pageId: string;
  link: string;
  message?: string;
  headline?: string;
  description?: string;
  callToAction?: { type: string; value?: Record<string, unknown> };
} & ({ imageHash: string; pictureUrl?: never } | { pictureUrl: string; imageHash?: never });

export interface CreateAdInput {
  name: string;
  adSetId: string;
  creativeId: string;
  status?: CreateStatus;
}

export interface FilterClause {
  field: string;
  operator:
    'EQUAL' | 'NOT_EQUAL' | 'IN' | 'NOT_IN' | 'CONTAIN' | 'NOT_CONTAIN' | 'GREATER_THAN' | 'LESS_THAN';
  value: unknown;
}

export interface ListEdgeOptions {
  fields: string[];
  filtering?: FilterClause[];
  limit?: number;
  /** Extra query params (e.g. `hashes` for adimages), JSON-encoded when not strings. */
  params?: Record<string, unknown>;
}

export interface GraphNode {
  id: string;
  [field: string]: unknown;
}
