import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { CheckUnavailableError } from '@vigil/kinds';
import { campaignBuildKind } from './campaign-build.kind';
import { campaignBuildPlan } from './plan';
import { campaignBuildDemoInput } from './demo-input';
import { MetaWriteOutcomeUnknownError } from '@vigil/meta-graph';
import { KindHarness } from '@vigil/testing';

type Row = Record<string, any>;

describe('campaign_build recovery: reconcile, duplicates, unavailable API', () => {
  let sb: RunningSandbox;
  const harness = () =>
    new KindHarness(campaignBuildKind, campaignBuildDemoInput({ adSets: 2, adsPerSet: 2 }), {
      baseUrl: sb.baseUrl,
    });
  const rows = (kind: string): Row[] => sb.sandbox.objects().objects[kind] as Row[];

  beforeAll(async () => {
    sb = await startSandbox({ accessToken: 'sandbox-token' });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.sandbox.reset());

  it.each([
    ['create_campaign', { campaign: 0 }, 'campaigns', '/campaigns$'],
    ['create_ad_set', { campaign: 0, adSet: 1 }, 'adsets', '/adsets$'],
    ['create_creative', { campaign: 0, adSet: 1, ad: 0 }, 'adcreatives', '/adcreatives$'],
    ['create_ad', { campaign: 0, adSet: 1, ad: 0 }, 'ads', '/ads$'],
  ])(
    '%s: reconcile finds nothing before the create and the committed object after a dropped response',
    async (tool, args, kind, path) => {
      const h = harness();
      const plan = campaignBuildPlan(h.input);
      const target = h.tool(tool).stepKey(args, h.input);
      for (const step of plan.slice(
        0,
        plan.findIndex((s) => s.key === target),
      ))
        await h.run(step);
      const before = rows(kind).length;
      expect(await h.reconcile({ tool, args })).toBeNull();

      sb.sandbox.setFaults({ failNext: [{ path, method: 'POST', kind: 'commitThenDrop' }] });
      await expect(h.run({ tool, args })).rejects.toBeInstanceOf(MetaWriteOutcomeUnknownError);
      const created = rows(kind).slice(-1)[0];
      expect(rows(kind)).toHaveLength(before + 1);
      expect(await h.reconcile({ tool, args })).toEqual({ id: created.id });
    },
  );

  it('upload_image: reconciles by content hash', async () => {
    const h = harness();
    const args = { campaign: 0, adSet: 0, ad: 1 };
    expect(await h.reconcile({ tool: 'upload_image', args })).toBeNull();
    const uploaded = await h.run({ tool: 'upload_image', args });
    expect(await h.reconcile({ tool: 'upload_image', args })).toEqual(uploaded);
  });

  it('reports objects created twice: in reconcile results and in all_objects_verified', async () => {
    const h = harness();
    await h.runPlan();
    await h.run({ tool: 'create_ad_set', args: { campaign: 0, adSet: 0 } });
    await h.run({ tool: 'create_creative', args: { campaign: 0, adSet: 1, ad: 1 } });
    expect(sb.sandbox.duplicates().map((d) => [d.kind, d.name])).toEqual([
      ['adset', 'Ad set 1'],
      ['adcreative', 'Ad 2.2 · creative'],
    ]);

    const adSet = await h.reconcile({ tool: 'create_ad_set', args: { campaign: 0, adSet: 0 } });
    expect(adSet).toMatchObject({ duplicates: 2 });
    expect(rows('adsets').map((r) => r.id)).toContain((adSet as { id: string }).id);

    const [campaigns, adSets, ads, all] = await h.check();
    expect([campaigns.passed, adSets.passed, ads.passed]).toEqual([true, true, true]);
    expect(adSets.detail).toBe('duplicated ad sets: Ad set 1 (2 copies)');
    expect(all).toMatchObject({ passed: false, actual: false });
    expect(all.detail).toBe('duplicates: Ad set 1 (2 copies), Ad 2.2 · creative (2 copies)');
  });

  it('throws CheckUnavailableError when the API cannot be reached or keeps failing', async () => {
    const stopped = await startSandbox({ accessToken: 'sandbox-token' });
    const h = new KindHarness(campaignBuildKind, campaignBuildDemoInput(), { baseUrl: stopped.baseUrl });
    await stopped.close();
    await expect(h.check('campaigns_exist')).rejects.toBeInstanceOf(CheckUnavailableError);

    sb.sandbox.setFaults({ transient500Probability: 1 });
    await expect(harness().check('all_objects_verified')).rejects.toThrow(CheckUnavailableError);
  }, 30_000);
});
