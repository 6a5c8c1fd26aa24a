import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { MetaGraphClient } from './client';
import { MetaApiError } from './errors';
import type { CreateAdSetInput } from './types';

const ACT = 'act_7007';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('MetaGraphClient against the sandbox', () => {
  let sb: RunningSandbox;
  let client: MetaGraphClient;

  beforeAll(async () => {
    sb = await startSandbox({ accessToken: 'client-token' });
    client = new MetaGraphClient({ baseUrl: sb.baseUrl, accessToken: 'client-token', backoffMs: 1 });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.sandbox.reset());

  const adSetInput = (campaignId: string, name = 'US adults'): CreateAdSetInput => ({
    name,
    campaignId,
    billingEvent: 'IMPRESSIONS',
    optimizationGoal: 'LINK_CLICKS',
    targeting: { geo_locations: { countries: ['US'] }, age_min: 21 },
    dailyBudget: 2500,
    bidStrategy: 'LOWEST_COST_WITH_BID_CAP',
    bidAmount: 150,
  });

  it('builds a full campaign → ad set → image → creative → ad chain with form-encoded creates', async () => {
    const campaign = await client.createCampaign(ACT, {
      name: 'Launch',
      objective: 'OUTCOME_TRAFFIC',
      specialAdCategories: [],
    });
    const adSet = await client.createAdSet('7007', adSetInput(campaign.id));
    const image = await client.uploadImage(ACT, { name: 'hero.png', bytesBase64: PNG });
    const creative = await client.createCreative(ACT, {
      name: 'Hero creative',
      pageId: '424242',
      imageHash: image.hash,
      link: 'https://shop.example.com',
      message: 'Spring sale',
      headline: 'Save 20%',
    });
    const ad = await client.createAd(ACT, {
      name: 'Hero ad',
      adSetId: adSet.id,
      creativeId: creative.id,
      status: 'ACTIVE',
    });

    expect(
      await client.getObject(campaign.id, ['name', 'objective', 'status', 'special_ad_categories']),
    ).toEqual({
      id: campaign.id,
      name: 'Launch',
      objective: 'OUTCOME_TRAFFIC',
      status: 'PAUSED',
      special_ad_categories: [],
    });
    expect(
      await client.getObject(adSet.id, ['targeting', 'daily_budget', 'bid_amount', 'bid_strategy']),
    ).toEqual({
      id: adSet.id,
      targeting: { geo_locations: { countries: ['US'] }, age_min: 21 },
      daily_budget: '2500',
      bid_amount: 150,
      bid_strategy: 'LOWEST_COST_WITH_BID_CAP',
    });
    expect(await client.getObject(creative.id, ['object_story_spec'])).toEqual({
      id: creative.id,
      object_story_spec: {
        page_id: '424242',
        link_data: {
          link: 'https://shop.example.com',
          message: 'Spring sale',
          name: 'Save 20%',
          image_hash: image.hash,
        },
      },
    });
    expect(
      await client.getObject(ad.id, ['adset_id', 'campaign_id', 'creative', 'effective_status']),
    ).toEqual({
      id: ad.id,
      adset_id: adSet.id,
      campaign_id: campaign.id,
      creative: { id: creative.id },
      effective_status: 'CAMPAIGN_PAUSED',
    });
    expect(sb.sandbox.objects().counts).toEqual({
      campaigns: 1,
      adsets: 1,
      adimages: 1,
      adcreatives: 1,
      ads: 1,
    });
    expect(sb.sandbox.duplicates()).toEqual([]);
  });

  it('fails fast with a typed MetaApiError on code 100, naming the parameter', async () => {
    const campaign = await client.createCampaign(ACT, {
      name: 'C',
      objective: 'OUTCOME_SALES',
      specialAdCategories: [],
    });
    const before = sb.sandbox.stats().requests;
    const input = { ...adSetInput(campaign.id), targeting: { age_min: 18 } } as unknown as CreateAdSetInput;
    const error = await client.createAdSet(ACT, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 100, httpStatus: 400, type: 'OAuthException', retryable: false });
    expect((error as MetaApiError).message).toContain('targeting');
    expect((error as MetaApiError).fbtraceId).toEqual(expect.any(String));
    expect(sb.sandbox.stats().requests - before).toBe(1);

    const missing = await client.getObject('120219999999999999', ['name']).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 100, subcode: 33, retryable: false });
  });

  it('fails fast on a bad token (190) without retrying', async () => {
    const bad = new MetaGraphClient({ baseUrl: sb.baseUrl, accessToken: 'wrong', backoffMs: 1 });
    const error = await bad
      .createCampaign(ACT, { name: 'C', objective: 'OUTCOME_SALES', specialAdCategories: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 190, type: 'OAuthException', retryable: false });
    expect(sb.sandbox.stats().requests).toBe(1);
  });

  it('lists an edge across pages with a small limit and filters by name', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      ids.push(
        (
          await client.createCampaign(ACT, {
            name: `C${i}`,
            objective: 'OUTCOME_LEADS',
            specialAdCategories: [],
          })
        ).id,
      );
    }
    await client.createCampaign(ACT, {
      name: 'C3',
      objective: 'OUTCOME_LEADS',
      specialAdCategories: ['HOUSING'],
    });
    const before = sb.sandbox.stats().requests;
    const all = await client.listEdge(ACT, 'campaigns', { fields: ['name'], limit: 3 });
    expect(sb.sandbox.stats().requests - before).toBe(3);
    expect(all).toHaveLength(8);
    expect(new Set(all.map((c) => c.id)).size).toBe(8);
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining(ids));

    const twins = await client.findByName(ACT, 'campaigns', 'C3', ['id', 'name', 'special_ad_categories']);
    expect(twins.map((c) => c.special_ad_categories)).toEqual([['HOUSING'], []]);
    expect(await client.findByName(ACT, 'campaigns', 'C')).toEqual([]);

    const filtered = await client.listEdge(ACT, 'campaigns', {
      fields: ['name'],
      limit: 2,
      filtering: [{ field: 'name', operator: 'IN', value: ['C1', 'C2', 'C5'] }],
    });
    expect(filtered.map((c) => c.name)).toEqual(['C5', 'C2', 'C1']);
  });

  it('finds child objects under a campaign and images by hash', async () => {
    const campaign = await client.createCampaign(ACT, {
      name: 'P',
      objective: 'OUTCOME_SALES',
      specialAdCategories: [],
    });
    const adSet = await client.createAdSet(ACT, adSetInput(campaign.id, 'Only'));
    expect(await client.findByName(campaign.id, 'adsets', 'Only')).toEqual([{ id: adSet.id, name: 'Only' }]);
    const image = await client.uploadImage(ACT, { name: 'a.png', bytesBase64: PNG });
    expect(await client.findImagesByHash(ACT, [image.hash])).toEqual([
      expect.objectContaining({ hash: image.hash, url: image.url, name: 'a.png' }),
    ]);
  });

  it('creates a creative from a picture URL', async () => {
    const creative = await client.createCreative(ACT, {
      name: 'By URL',
      pageId: '1',
      pictureUrl: 'https://cdn.example.com/p.jpg',
      link: 'https://example.com',
    });
    const got = await client.getObject(creative.id, ['object_story_spec']);
    expect(got.object_story_spec).toEqual({
      page_id: '1',
      link_data: { link: 'https://example.com', picture: 'https://cdn.example.com/p.jpg' },
    });
  });
});
