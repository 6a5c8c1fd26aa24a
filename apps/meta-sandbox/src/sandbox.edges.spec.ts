import { startSandbox, type RunningSandbox } from './test-kit';

const ACT = 'act_3003';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

interface EdgeBody {
  data: { name: string }[];
  paging: { next?: string; previous?: string };
}
const page = async (url: string): Promise<EdgeBody> => (await (await fetch(url)).json()) as EdgeBody;

describe('MetaSandbox edges (cursor paging, filtering)', () => {
  let sb: RunningSandbox;
  const campaignIds: string[] = [];

  beforeAll(async () => {
    sb = await startSandbox();
    for (let i = 1; i <= 5; i += 1) {
      const res = await sb.postForm(`${ACT}/campaigns`, {
        name: `Campaign ${i}`,
        objective: 'OUTCOME_SALES',
        special_ad_categories: [],
        status: i % 2 ? 'ACTIVE' : 'PAUSED',
      });
      campaignIds.push(res.body.id);
    }
    await sb.postForm('act_4004/campaigns', {
      name: 'Other account',
      objective: 'OUTCOME_SALES',
      special_ad_categories: [],
    });
  });
  afterAll(() => sb.close());

  it('pages newest first with opaque cursors; next is a full URL only while more exist', async () => {
    const first = await sb.get(`${ACT}/campaigns`, { fields: 'name', limit: '2' });
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(['Campaign 5', 'Campaign 4']);
    expect(first.body.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });
    expect(first.body.paging.previous).toBeUndefined();
    const next = new URL(first.body.paging.next);
    expect(next.origin).toBe(sb.origin);
    expect(next.searchParams.get('after')).toBe(first.body.paging.cursors.after);

    const second = await page(first.body.paging.next);
    expect(second.data.map((c: { name: string }) => c.name)).toEqual(['Campaign 3', 'Campaign 2']);
    expect(second.paging.previous).toEqual(expect.stringContaining('before='));
    const third = await page(second.paging.next as string);
    expect(third.data.map((c: { name: string }) => c.name)).toEqual(['Campaign 1']);
    expect(third.paging.next).toBeUndefined();

    const back = await page(third.paging.previous as string);
    expect(back.data.map((c: { name: string }) => c.name)).toEqual(['Campaign 3', 'Campaign 2']);
  });

  it('returns only id by default and the default page size of 25', async () => {
    const res = await sb.get(`${ACT}/campaigns`);
    expect(res.body.data).toHaveLength(5);
    expect(Object.keys(res.body.data[0])).toEqual(['id']);
    expect(res.body.paging.next).toBeUndefined();
  });

  it("supports Meta's JSON-encoded filtering", async () => {
    const byName = await sb.get(`${ACT}/campaigns`, {
      fields: 'name',
      filtering: JSON.stringify([{ field: 'name', operator: 'EQUAL', value: 'Campaign 3' }]),
    });
    expect(byName.body.data).toEqual([{ id: campaignIds[2], name: 'Campaign 3' }]);
    const active = await sb.get(`${ACT}/campaigns`, {
      fields: 'name',
      filtering: JSON.stringify([{ field: 'effective_status', operator: 'IN', value: ['ACTIVE'] }]),
    });
    expect(active.body.data).toHaveLength(3);
    const none = await sb.get(`${ACT}/campaigns`, {
      filtering: JSON.stringify([{ field: 'name', operator: 'EQUAL', value: 'nope' }]),
    });
    expect(none.body).toEqual({ data: [] });
    const bad = await sb.get(`${ACT}/campaigns`, { filtering: '{oops' });
    expect(bad.body.error).toMatchObject({ code: 100 });
    expect(bad.body.error.message).toContain('filtering');
    const badField = await sb.get(`${ACT}/campaigns`, {
      filtering: JSON.stringify([{ field: 'colour', operator: 'EQUAL', value: 'x' }]),
    });
    expect(badField.body.error.code).toBe(100);
  });

  it('lists child edges: campaign → adsets/ads, adset → ads, and the account edges', async () => {
    const campaignId = campaignIds[0];
    const adsetIds: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      const res = await sb.postForm(`${ACT}/adsets`, {
        name,
        campaign_id: campaignId,
        billing_event: 'IMPRESSIONS',
        optimization_goal: 'REACH',
        targeting: { geo_locations: { countries: ['DE'] } },
        daily_budget: '1000',
      });
      adsetIds.push(res.body.id);
    }
    const creative = await sb.postForm(`${ACT}/adcreatives`, {
      name: 'Cr',
      object_story_spec: {
        page_id: '1',
        link_data: { picture: 'https://x.test/p.png', link: 'https://x.test' },
      },
    });
    await sb.postForm(`${ACT}/ads`, {
      name: 'Ad',
      adset_id: adsetIds[1],
      creative: { creative_id: creative.body.id },
    });

    const viaCampaign = await sb.get(`${campaignId}/adsets`, { fields: 'name,campaign_id', limit: '2' });
    expect(viaCampaign.body.data.map((a: { name: string }) => a.name)).toEqual(['C', 'B']);
    expect(viaCampaign.body.paging.next).toBeDefined();
    expect((await sb.get(`${campaignIds[1]}/adsets`)).body.data).toEqual([]);
    const ads = await sb.get(`${adsetIds[1]}/ads`, { fields: 'name,adset_id' });
    expect(ads.body.data).toEqual([{ id: expect.any(String), name: 'Ad', adset_id: adsetIds[1] }]);
    expect((await sb.get(`${campaignId}/ads`)).body.data).toHaveLength(1);
    const filtered = await sb.get(`${ACT}/adsets`, {
      fields: 'name',
      filtering: JSON.stringify([{ field: 'campaign.id', operator: 'EQUAL', value: campaignId }]),
      summary: 'true',
    });
    expect(filtered.body.summary).toEqual({ total_count: 3 });
    expect((await sb.get(`${ACT}/adcreatives`, { fields: 'name' })).body.data).toEqual([
      { id: creative.body.id, name: 'Cr' },
    ]);
    const unknownEdge = await sb.get(`${campaignId}/insightsx`);
    expect(unknownEdge.body.error).toMatchObject({ code: 100 });
  });

  it('filters adimages by hashes', async () => {
    const up = await sb.postForm(`${ACT}/adimages`, { bytes: PNG, name: 'one.png' });
    const hash = up.body.images['one.png'].hash;
    const found = await sb.get(`${ACT}/adimages`, {
      fields: 'hash,name,url',
      hashes: JSON.stringify([hash]),
    });
    expect(found.body.data).toEqual([
      { id: `3003:${hash}`, hash, name: 'one.png', url: up.body.images['one.png'].url },
    ]);
    const none = await sb.get(`${ACT}/adimages`, { hashes: JSON.stringify(['0'.repeat(32)]) });
    expect(none.body.data).toEqual([]);
  });

  it('rejects bad limits and cursors with code 100', async () => {
    expect((await sb.get(`${ACT}/campaigns`, { limit: '-1' })).body.error.code).toBe(100);
    expect((await sb.get(`${ACT}/campaigns`, { after: 'garbage' })).body.error.message).toContain('after');
  });
});
