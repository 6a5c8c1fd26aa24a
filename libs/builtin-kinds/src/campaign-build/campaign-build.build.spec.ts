import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { ToolArgumentError } from '@vigil/kinds';
import { campaignBuildKind } from './campaign-build.kind';
import { campaignBuildDemoInput } from './demo-input';
import { imageHash } from '@vigil/meta-graph';
import { KindHarness } from '@vigil/testing';

type Row = Record<string, any>;

describe('campaign_build against the Meta sandbox', () => {
  let sb: RunningSandbox;
  const harness = (input = campaignBuildDemoInput()) =>
    new KindHarness(campaignBuildKind, input, { baseUrl: sb.baseUrl });

  beforeAll(async () => {
    sb = await startSandbox({ accessToken: 'sandbox-token' });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.sandbox.reset());

  it('walks the plan into exactly the input, sending every field Meta needs, and passes every check', async () => {
    const h = harness();
    await h.runPlan();
    const { counts, objects, duplicates } = sb.sandbox.objects();
    expect(counts).toEqual({ campaigns: 1, adsets: 12, adimages: 36, adcreatives: 36, ads: 36 });
    expect(duplicates).toEqual([]);

    const [campaign] = objects.campaigns as Row[];
    expect(campaign).toMatchObject({
      name: 'Spring Sale 2025',
      objective: 'OUTCOME_TRAFFIC',
      status: 'PAUSED',
    });
    expect(campaign.special_ad_categories).toEqual([]);
    const adSets = objects.adsets as Row[];
    expect(adSets.map((a) => a.name)).toEqual(Array.from({ length: 12 }, (_, j) => `Ad set ${j + 1}`));
    expect(adSets[1]).toMatchObject({
      campaign_id: campaign.id,
      daily_budget: '2000',
      billing_event: 'IMPRESSIONS',
      optimization_goal: 'LINK_CLICKS',
      bid_strategy: 'LOWEST_COST_WITHOUT_CAP',
      status: 'PAUSED',
      targeting: { geo_locations: { countries: ['CA'] }, age_min: 25, age_max: 34 },
    });
    const input = h.input;
    const firstAd = input.campaigns[0].adSets[0].ads[0];
    const image = (objects.adimages as Row[])[0];
    expect(image).toMatchObject({ name: 'Ad 1.1 · image', hash: imageHash(firstAd.imageBase64!) });
    const creative = (objects.adcreatives as Row[])[0];
    expect(creative.name).toBe('Ad 1.1 · creative');
    expect(creative.object_story_spec).toEqual({
      page_id: '1122334455',
      link_data: { image_hash: image.hash, link: firstAd.link, message: firstAd.message },
    });
    const ad = (objects.ads as Row[])[0];
    expect(ad).toMatchObject({
      name: 'Ad 1.1',
      adset_id: adSets[0].id,
      creative: { id: creative.id },
      status: 'PAUSED',
    });

    expect(h.outputs.get('campaign:0')).toEqual({ id: campaign.id });
    expect(h.outputs.get('image:0:0:0')).toEqual({ hash: image.hash, url: image.url });
    expect(h.outputs.get('verify:0:4')).toMatchObject({
      ok: true,
      ads: { expected: 3, found: 3 },
      mismatches: [],
    });
    expect(h.outputs.get('verify:0')).toMatchObject({
      ok: true,
      adSets: { expected: 12, found: 12 },
      ads: { expected: 36, found: 36, duplicated: 0 },
    });

    const results = await h.check();
    expect(
      results.map(({ check, expected, actual, passed }) => ({ check, expected, actual, passed })),
    ).toEqual([
      { check: 'campaigns_exist', expected: 1, actual: 1, passed: true },
      { check: 'ad_sets_exist', expected: 12, actual: 12, passed: true },
      { check: 'ads_attached', expected: 36, actual: 36, passed: true },
      { check: 'all_objects_verified', expected: true, actual: true, passed: true },
    ]);
    expect(results[3].detail).toBe('verified 1 campaigns, 12 ad sets, 36 creatives and 36 ads');
  });

  it('fails the checks when the last 3 ad sets were never created, naming what is missing', async () => {
    const h = harness();
    await h.runPlan((step) => !/^(adset|image|creative|ad|verify):0:(9|10|11)(:|$)/.test(step.key));
    expect(sb.sandbox.objects().counts).toMatchObject({ adsets: 9, ads: 27 });
    expect(h.outputs.get('verify:0')).toMatchObject({
      ok: false,
      adSets: { expected: 12, found: 9 },
      missingAdSets: ['Ad set 10', 'Ad set 11', 'Ad set 12'],
    });

    const [campaigns, adSets, ads, all] = await h.check();
    expect(campaigns).toMatchObject({ passed: true, actual: 1 });
    expect(adSets).toMatchObject({ passed: false, expected: 12, actual: 9 });
    expect(adSets.detail).toBe('missing ad sets: Ad set 10, Ad set 11, Ad set 12');
    expect(ads).toMatchObject({ passed: false, expected: 36, actual: 27 });
    expect(ads.detail).toContain(
      'missing ads: Ad 10.1, Ad 10.2, Ad 10.3, Ad 11.1, Ad 11.2, Ad 11.3, Ad 12.1',
    );
    expect(ads.detail).toContain('missing ad sets (their ads cannot exist): Ad set 10, Ad set 11, Ad set 12');
    expect(all).toMatchObject({ passed: false, actual: false });
    expect(all.detail).toContain('missing ad sets: Ad set 10, Ad set 11, Ad set 12');
    expect(all.detail).toContain('missing creatives: Ad 10.1 · creative');
  });

  it('refuses a step whose dependency has not succeeded, naming that step', async () => {
    const h = harness();
    await expect(h.run({ tool: 'create_ad_set', args: { campaign: 0, adSet: 3 } })).rejects.toThrow(
      new ToolArgumentError('create_campaign {campaign:0} has not succeeded yet'),
    );
    await h.run({ tool: 'create_campaign', args: { campaign: 0 } });
    await expect(h.run({ tool: 'create_creative', args: { campaign: 0, adSet: 1, ad: 2 } })).rejects.toThrow(
      'upload_image {campaign:0, adSet:1, ad:2} has not succeeded yet',
    );
    await expect(h.run({ tool: 'create_ad', args: { campaign: 0, adSet: 1, ad: 2 } })).rejects.toThrow(
      'create_ad_set {campaign:0, adSet:1} has not succeeded yet',
    );
    expect(sb.sandbox.objects().counts).toMatchObject({ campaigns: 1, adsets: 0, adcreatives: 0 });
  });

  it('judges by the API alone: claimed outputs without objects fail, and field drift is named', async () => {
    const empty = harness();
    empty.outputs.set('campaign:0', { id: '1' });
    const [campaigns] = await empty.check('campaigns_exist');
    expect(campaigns).toMatchObject({
      passed: false,
      actual: 0,
      detail: 'missing campaigns: Spring Sale 2025',
    });

    await harness().runPlan((step) => !step.tool.startsWith('read_back'));
    const drifted = campaignBuildDemoInput();
    drifted.campaigns[0].adSets[0].dailyBudgetCents = 9999;
    drifted.campaigns[0].adSets[2].ads[1].message = 'Another text';
    // Someone switched an ad on in Ads Manager: it would spend money nobody approved.
    const [firstAd] = sb.sandbox.store.list('ad');
    firstAd.status = 'ACTIVE';
    const [all] = await harness(drifted).check('all_objects_verified');
    expect(all).toMatchObject({ passed: false, actual: false });
    expect(all.detail).toContain('mismatches: Ad set 1 daily_budget is "1500", expected "9999"');
    expect(all.detail).toContain('Ad 3.2 · creative message is');
    expect(all.detail).toContain(`${firstAd.name} status is "ACTIVE", expected "PAUSED"`);
  });
});
