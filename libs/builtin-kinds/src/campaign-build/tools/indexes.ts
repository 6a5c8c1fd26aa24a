import { ToolArgumentError, type JsonSchema } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';

/** Tool arguments are indexes into the input, so a model never invents names or ids. */

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function index(args: Record<string, unknown>, name: string, count: number, scope: string): number {
  const value = args[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= count) {
    const got = value === undefined ? 'missing' : JSON.stringify(value);
    throw new ToolArgumentError(`${name} must be an integer from 0 to ${count - 1} (${scope}), got ${got}`);
  }
  return value;
}

export interface CampaignIndex {
  i: number;
}
export interface AdSetIndex extends CampaignIndex {
  j: number;
}
export interface AdIndex extends AdSetIndex {
  k: number;
}

export function campaignIndex(args: Record<string, unknown>, input: CampaignBuildInput): CampaignIndex {
  const n = input.campaigns.length;
  return { i: index(args, 'campaign', n, `this build has ${plural(n, 'campaign')}`) };
}

export function adSetIndex(args: Record<string, unknown>, input: CampaignBuildInput): AdSetIndex {
  const { i } = campaignIndex(args, input);
  const n = input.campaigns[i].adSets.length;
  return { i, j: index(args, 'adSet', n, `campaign ${i} has ${plural(n, 'ad set')}`) };
}

export function adIndex(args: Record<string, unknown>, input: CampaignBuildInput): AdIndex {
  const { i, j } = adSetIndex(args, input);
  const n = input.campaigns[i].adSets[j].ads.length;
  return { i, j, k: index(args, 'ad', n, `campaign ${i}, ad set ${j} has ${plural(n, 'ad')}`) };
}

const integer = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description });
const CAMPAIGN = integer('Index of the campaign in the input (0-based).');
const AD_SET = integer("Index of the ad set within the campaign's adSets (0-based).");
const AD = integer("Index of the ad within the ad set's ads (0-based).");

export const PARAMETERS: Record<'campaign' | 'adSet' | 'ad', JsonSchema> = {
  campaign: {
    type: 'object',
    properties: { campaign: CAMPAIGN },
    required: ['campaign'],
    additionalProperties: false,
  },
  adSet: {
    type: 'object',
    properties: { campaign: CAMPAIGN, adSet: AD_SET },
    required: ['campaign', 'adSet'],
    additionalProperties: false,
  },
  ad: {
    type: 'object',
    properties: { campaign: CAMPAIGN, adSet: AD_SET, ad: AD },
    required: ['campaign', 'adSet', 'ad'],
    additionalProperties: false,
  },
};
