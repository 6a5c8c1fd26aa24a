import type { RunCheck } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import { adRefs, adSetLabel, adSetRefs } from '../input-spec';
import { creativeIdOf } from '../verify/compare';
import { joinDetail, section } from './detail';
import { countResult, readState } from './read-state';

/** `ads_attached`: each expected ad exists under its ad set and points at a creative that exists. */
export const adsAttached: RunCheck<CampaignBuildInput> = async (criterion, context) => {
  const { input } = context;
  const state = await readState(criterion.check, context, 'ads');
  const missingAdSets = adSetRefs(input)
    .filter((ref) => (state.adSets.get(`${ref.campaign}:${ref.adSet}`) ?? []).length === 0)
    .map((ref) => adSetLabel(input, ref.campaign, ref.adSet));
  const missing: string[] = [];
  const noCreative: string[] = [];
  let attached = 0;
  for (const ref of adRefs(input)) {
    const matches = state.ads.get(`${ref.campaign}:${ref.adSet}:${ref.ad}`) ?? [];
    const withCreative = matches.some((ad) => state.creativesById.has(creativeIdOf(ad) ?? ''));
    if (matches.length === 0) missing.push(ref.adSpec.name);
    else if (!withCreative) noCreative.push(ref.adSpec.name);
    else attached += 1;
  }
  const detail = joinDetail(
    [
      section('missing ads', missing),
      section('ads whose creative does not exist', noCreative),
      section('missing ad sets (their ads cannot exist)', missingAdSets),
    ],
    `all ${attached} ads found under their ad sets with existing creatives`,
  );
  return countResult(criterion, attached, detail);
};
