import { ToolArgumentError } from '@vigil/kinds';
import { campaignBuildKind } from './campaign-build.kind';
import { campaignBuildPlan } from './plan';
import { campaignBuildDemoInput } from './demo-input';

describe('campaign_build plan', () => {
  const input = campaignBuildDemoInput();
  const plan = campaignBuildPlan(input);

  it('has 134 steps for 1 campaign × 12 ad sets × 3 ads with base64 images', () => {
    expect(plan).toHaveLength(134);
    expect(campaignBuildKind.totalUnits(input)).toBe(134);
    expect(new Set(plan.map((s) => s.key)).size).toBe(134);
    const count = (tool: string) => plan.filter((s) => s.tool === tool).length;
    expect([count('create_campaign'), count('create_ad_set'), count('upload_image')]).toEqual([1, 12, 36]);
    expect([count('create_creative'), count('create_ad'), count('read_back_ad_set')]).toEqual([36, 36, 12]);
    expect(count('read_back_campaign')).toBe(1);
  });

  it('orders dependencies first: campaign, all ad sets, per ad image → creative → ad, then read-backs', () => {
    expect(plan.slice(0, 2)).toEqual([
      { key: 'campaign:0', tool: 'create_campaign', args: { campaign: 0 } },
      { key: 'adset:0:0', tool: 'create_ad_set', args: { campaign: 0, adSet: 0 } },
    ]);
    expect(plan[12].key).toBe('adset:0:11');
    expect(plan.slice(13, 16).map((s) => s.key)).toEqual(['image:0:0:0', 'creative:0:0:0', 'ad:0:0:0']);
    expect(plan.slice(-13, -1).map((s) => s.key)).toEqual(
      Array.from({ length: 12 }, (_, j) => `verify:0:${j}`),
    );
    expect(plan[133]).toEqual({ key: 'verify:0', tool: 'read_back_campaign', args: { campaign: 0 } });

    const position = new Map(plan.map((s, n) => [s.key, n]));
    for (const step of plan) {
      const [kind, i, j, k] = step.key.split(':');
      const needs =
        kind === 'adset'
          ? [`campaign:${i}`]
          : kind === 'creative'
            ? [`image:${i}:${j}:${k}`]
            : kind === 'ad'
              ? [`adset:${i}:${j}`, `creative:${i}:${j}:${k}`]
              : [];
      for (const need of needs) expect(position.get(need)!).toBeLessThan(position.get(step.key)!);
    }
  });

  it('keeps every step key in agreement with the tool that performs it', () => {
    for (const step of plan) {
      const tool = campaignBuildKind.tools.find((t) => t.name === step.tool)!;
      expect(tool.stepKey(step.args, input)).toBe(step.key);
    }
  });

  it('skips upload_image for ads that use an image URL, and covers several campaigns', () => {
    const mixed = campaignBuildDemoInput({ campaigns: 2, adSets: 2, adsPerSet: 2 });
    const ad = mixed.campaigns[1].adSets[0].ads[1];
    delete ad.imageBase64;
    ad.imageUrl = 'https://cdn.example.com/a.png';
    const steps = campaignBuildPlan(mixed);
    expect(steps).toHaveLength(2 * (1 + 2 + 4 * 3 + 2 + 1) - 1);
    expect(steps.map((s) => s.key)).not.toContain('image:1:0:1');
    expect(steps.findIndex((s) => s.key === 'verify:0')).toBeLessThan(
      steps.findIndex((s) => s.key === 'campaign:1'),
    );
    const upload = campaignBuildKind.tools.find((t) => t.name === 'upload_image')!;
    expect(() => upload.stepKey({ campaign: 1, adSet: 0, ad: 1 }, mixed)).toThrow(/uses imageUrl/);
  });

  it('refuses indexes that name no step, naming the range', () => {
    const createAdSet = campaignBuildKind.tools.find((t) => t.name === 'create_ad_set')!;
    expect(() => createAdSet.stepKey({ campaign: 0, adSet: 12 }, input)).toThrow(ToolArgumentError);
    expect(() => createAdSet.stepKey({ campaign: 0, adSet: 12 }, input)).toThrow(
      'adSet must be an integer from 0 to 11 (campaign 0 has 12 ad sets), got 12',
    );
    expect(() => createAdSet.stepKey({ campaign: 1, adSet: 0 }, input)).toThrow(
      'campaign must be an integer from 0 to 0 (this build has 1 campaign), got 1',
    );
    const createAd = campaignBuildKind.tools.find((t) => t.name === 'create_ad')!;
    expect(() => createAd.stepKey({ campaign: 0, adSet: 2, ad: 1.5 }, input)).toThrow(
      /ad must be an integer from 0 to 2/,
    );
    expect(() => createAd.stepKey({ campaign: 0, adSet: 2 }, input)).toThrow(/got missing/);
  });

  it('describes the task and its exit criteria', () => {
    expect(campaignBuildKind.defaultExitCriteria(input)).toEqual([
      { check: 'campaigns_exist', expected: 1 },
      { check: 'ad_sets_exist', expected: 12 },
      { check: 'ads_attached', expected: 36 },
      { check: 'all_objects_verified', expected: true },
    ]);
    expect(Object.keys(campaignBuildKind.checks).sort()).toEqual([
      'ad_sets_exist',
      'ads_attached',
      'all_objects_verified',
      'campaigns_exist',
    ]);
    expect(campaignBuildKind.defaultTitle(input)).toBe('Build "Spring Sale 2025": 12 ad sets, 36 ads');
    const text = campaignBuildKind.instructions(input);
    expect(text).toContain('1 campaign with 12 ad sets and 36 ads');
    expect(text).toMatch(/Never repeat a step that already succeeded/);
    expect(text).toMatch(/finish_task/);
    const writes = campaignBuildKind.tools.filter((t) => t.effect === 'write');
    expect(writes.map((t) => t.name)).toEqual([
      'create_campaign',
      'create_ad_set',
      'upload_image',
      'create_creative',
      'create_ad',
    ]);
    expect(writes.every((t) => typeof t.reconcile === 'function')).toBe(true);
  });
});
