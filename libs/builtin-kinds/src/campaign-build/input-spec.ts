import type { Targeting } from '@vigil/meta-graph';
import {
  CAMPAIGN_BUILD_DEFAULTS,
  type AdSetSpec,
  type AdSpec,
  type CampaignBuildInput,
  type CampaignSpec,
} from './campaign-build.input';

/** Read access to a (validated) input with defaults applied, plus the names objects get in Meta. */

export interface ResolvedCampaign extends CampaignSpec {
  specialAdCategories: string[];
}

export interface ResolvedAdSet extends AdSetSpec {
  billingEvent: string;
  optimizationGoal: string;
  targeting: Targeting;
}

export interface CampaignRef {
  campaign: number;
  spec: ResolvedCampaign;
}
export interface AdSetRef extends CampaignRef {
  adSet: number;
  adSetSpec: ResolvedAdSet;
}
export interface AdRef extends AdSetRef {
  ad: number;
  adSpec: AdSpec;
}

export function campaignAt(input: CampaignBuildInput, i: number): ResolvedCampaign {
  const spec = input.campaigns[i];
  return { ...spec, specialAdCategories: spec.specialAdCategories ?? [] };
}

export function adSetAt(input: CampaignBuildInput, i: number, j: number): ResolvedAdSet {
  const spec = input.campaigns[i].adSets[j];
  return {
    ...spec,
    billingEvent: spec.billingEvent ?? CAMPAIGN_BUILD_DEFAULTS.billingEvent,
    optimizationGoal: spec.optimizationGoal ?? CAMPAIGN_BUILD_DEFAULTS.optimizationGoal,
    targeting: (spec.targeting ?? CAMPAIGN_BUILD_DEFAULTS.targeting()) as Targeting,
  };
}

export function adAt(input: CampaignBuildInput, i: number, j: number, k: number): AdSpec {
  return input.campaigns[i].adSets[j].ads[k];
}

/** Creatives are named after their ad. */
export const creativeName = (ad: Pick<AdSpec, 'name'>): string => `${ad.name} · creative`;
/** Uploaded images are named after their ad. */
export const imageName = (ad: Pick<AdSpec, 'name'>): string => `${ad.name} · image`;

export function campaignRefs(input: CampaignBuildInput): CampaignRef[] {
  return input.campaigns.map((_, i) => ({ campaign: i, spec: campaignAt(input, i) }));
}

export function adSetRefs(input: CampaignBuildInput, only?: number): AdSetRef[] {
  return campaignRefs(input)
    .filter((ref) => only === undefined || ref.campaign === only)
    .flatMap((ref) =>
      ref.spec.adSets.map((_, j) => ({ ...ref, adSet: j, adSetSpec: adSetAt(input, ref.campaign, j) })),
    );
}

export function adRefs(input: CampaignBuildInput, only?: number): AdRef[] {
  return adSetRefs(input, only).flatMap((ref) =>
    ref.adSetSpec.ads.map((adSpec, k) => ({ ...ref, ad: k, adSpec })),
  );
}

export function countAdSets(input: CampaignBuildInput): number {
  return input.campaigns.reduce((sum, c) => sum + c.adSets.length, 0);
}

export function countAds(input: CampaignBuildInput): number {
  return input.campaigns.reduce((sum, c) => sum + c.adSets.reduce((n, s) => n + s.ads.length, 0), 0);
}

/** How an ad set is named in messages: qualified by its campaign when the build has several. */
export function adSetLabel(input: CampaignBuildInput, i: number, j: number): string {
  const name = input.campaigns[i].adSets[j].name;
  return input.campaigns.length > 1 ? `${input.campaigns[i].name} › ${name}` : name;
}
