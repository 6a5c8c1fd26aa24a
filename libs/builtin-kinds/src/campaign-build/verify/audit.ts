import type { CampaignBuildInput } from '../campaign-build.input';
import { adRefs, adSetLabel, adSetRefs, campaignRefs, creativeName } from '../input-spec';
import type { BuildState } from './build-state';
import { adMismatches, adSetMismatches, campaignMismatches, creativeMismatches } from './compare';

/** Everything wrong with a build compared with its input; all lists empty means verified. */
export interface BuildAudit {
  missing: { campaigns: string[]; adSets: string[]; creatives: string[]; ads: string[] };
  duplicated: string[];
  mismatched: string[];
}

const ids = (nodes: { id: string }[] | undefined): string[] => (nodes ?? []).map((node) => node.id);

export function auditBuild(input: CampaignBuildInput, state: BuildState): BuildAudit {
  const audit: BuildAudit = {
    missing: { campaigns: [], adSets: [], creatives: [], ads: [] },
    duplicated: [],
    mismatched: [],
  };
  const tally = (kind: keyof BuildAudit['missing'], label: string, count: number): void => {
    if (count === 0) audit.missing[kind].push(label);
    if (count > 1) audit.duplicated.push(`${label} (${count} copies)`);
  };

  for (const { campaign: i, spec } of campaignRefs(input)) {
    const found = state.campaigns[i];
    tally('campaigns', spec.name, found.length);
    for (const node of found) audit.mismatched.push(...campaignMismatches(node, spec));
  }
  for (const { campaign: i, adSet: j, adSetSpec } of adSetRefs(input)) {
    const label = adSetLabel(input, i, j);
    const found = state.adSets.get(`${i}:${j}`) ?? [];
    tally('adSets', label, found.length);
    for (const node of found)
      audit.mismatched.push(...adSetMismatches(node, adSetSpec, ids(state.campaigns[i]), label));
  }
  for (const { campaign: i, adSet: j, ad: k, adSpec } of adRefs(input)) {
    const name = creativeName(adSpec);
    const creatives = state.creatives.get(name) ?? [];
    tally('creatives', name, creatives.length);
    for (const node of creatives)
      audit.mismatched.push(...creativeMismatches(node, adSpec, input.pageId, name));

    const ads = state.ads.get(`${i}:${j}:${k}`) ?? [];
    tally('ads', adSpec.name, ads.length);
    const adSetIds = ids(state.adSets.get(`${i}:${j}`));
    for (const node of ads)
      audit.mismatched.push(...adMismatches(node, adSetIds, ids(creatives), adSpec.name));
  }
  return audit;
}

export const auditPassed = (audit: BuildAudit): boolean =>
  Object.values(audit.missing).every((list) => list.length === 0) &&
  audit.duplicated.length === 0 &&
  audit.mismatched.length === 0;
