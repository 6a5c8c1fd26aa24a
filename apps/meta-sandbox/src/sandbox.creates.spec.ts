import { createHash } from 'node:crypto';
import { startSandbox, type RunningSandbox } from './test-kit';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const ACT = 'act_1001';

const campaign = { name: 'Spring', objective: 'OUTCOME_TRAFFIC', special_ad_categories: [] };
const targeting = { geo_locations: { countries: ['US'] }, age_min: 18 };
const adset = (campaignId: string): Record<string, unknown> => ({
  name: 'US 18+',
  campaign_id: campaignId,
  billing_event: 'IMPRESSIONS',
  optimization_goal: 'LINK_CLICKS',
  targeting,
  daily_budget: 1500,
});

describe('MetaSandbox creates (wire format)', () => {
  let sb: RunningSandbox;

  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.sandbox.reset());

  const expectParamError = (reply: { status: number; body: any }, param: string): void => {
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ type: 'OAuthException', code: 100 });
    expect(reply.body.error.message).toContain(param);
    expect(typeof reply.body.error.fbtrace_id).toBe('string');
  };

  it('creates a campaign from a form body (nested fields JSON-encoded) with Meta-style string ids', async () => {
    const res = await sb.postForm(`${ACT}/campaigns`, campaign);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^\d{15,}$/) });
    const got = await sb.get(res.body.id, {
      fields: 'name,objective,status,special_ad_categories,account_id,created_time',
    });
    expect(got.body).toEqual({
      id: res.body.id,
      name: 'Spring',
      objective: 'OUTCOME_TRAFFIC',
      status: 'PAUSED',
      special_ad_categories: [],
      account_id: '1001',
      created_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/),
    });
  });

  it('accepts a JSON body with real nested objects and a Bearer token', async () => {
    const c = await sb.postJson(`${ACT}/campaigns`, { ...campaign, status: 'ACTIVE' });
    expect(c.status).toBe(200);
    const s = await sb.postJson(`${ACT}/adsets`, adset(c.body.id));
    expect(s.status).toBe(200);
    const got = await sb.get(s.body.id, { fields: 'targeting,daily_budget,campaign_id,effective_status' });
    expect(got.body).toEqual({
      id: s.body.id,
      targeting,
      daily_budget: '1500',
      campaign_id: c.body.id,
      effective_status: 'PAUSED',
    });
  });

  it.each(['name', 'objective', 'special_ad_categories'])(
    'campaign without %s → code 100 naming it',
    async (field) => {
      const body = { ...campaign } as Record<string, unknown>;
      delete body[field];
      expectParamError(await sb.postForm(`${ACT}/campaigns`, body), field);
      expect(sb.sandbox.objects().counts.campaigns).toBe(0);
    },
  );

  it('rejects a non-OUTCOME objective and a bad status', async () => {
    expectParamError(
      await sb.postForm(`${ACT}/campaigns`, { ...campaign, objective: 'LINK_CLICKS' }),
      'objective',
    );
    expectParamError(await sb.postForm(`${ACT}/campaigns`, { ...campaign, status: 'LIVE' }), 'status');
    expectParamError(
      await sb.postForm(`${ACT}/campaigns`, { ...campaign, special_ad_categories: 'NONE' }),
      'special_ad_categories',
    );
  });

  it.each(['name', 'campaign_id', 'billing_event', 'optimization_goal', 'targeting', 'daily_budget'])(
    'ad set without %s → code 100 naming it',
    async (field) => {
      const c = await sb.postForm(`${ACT}/campaigns`, campaign);
      const body = adset(c.body.id);
      delete body[field];
      expectParamError(await sb.postForm(`${ACT}/adsets`, body), field);
    },
  );

  it('validates ad set budget, targeting and campaign ownership', async () => {
    const c = await sb.postForm(`${ACT}/campaigns`, campaign);
    expectParamError(
      await sb.postForm(`${ACT}/adsets`, { ...adset(c.body.id), daily_budget: 0 }),
      'daily_budget',
    );
    expectParamError(
      await sb.postForm(`${ACT}/adsets`, { ...adset(c.body.id), daily_budget: '12.5' }),
      'daily_budget',
    );
    expectParamError(
      await sb.postForm(`${ACT}/adsets`, { ...adset(c.body.id), targeting: { age_min: 18 } }),
      'targeting',
    );
    expectParamError(
      await sb.postForm(`${ACT}/adsets`, { ...adset(c.body.id), targeting: '{not json' }),
      'targeting',
    );
    expectParamError(await sb.postForm('act_2002/adsets', adset(c.body.id)), 'campaign_id');
    const lifetime = { ...adset(c.body.id), daily_budget: undefined, lifetime_budget: 90000 };
    expectParamError(await sb.postForm(`${ACT}/adsets`, lifetime), 'end_time');
    const ok = await sb.postForm(`${ACT}/adsets`, { ...lifetime, end_time: '2030-01-01T00:00:00+0000' });
    expect(ok.status).toBe(200);
  });

  it('uploads images by base64 bytes: md5 hash, same bytes → same hash and one image', async () => {
    const first = await sb.postForm(`${ACT}/adimages`, { bytes: PNG, name: 'hero.png' });
    expect(first.status).toBe(200);
    const hash = createHash('md5').update(Buffer.from(PNG, 'base64')).digest('hex');
    expect(first.body).toEqual({ images: { 'hero.png': { hash, url: expect.stringContaining(hash) } } });
    const again = await sb.postForm(`${ACT}/adimages`, { bytes: PNG });
    expect(again.body.images.bytes.hash).toBe(hash);
    expect(sb.sandbox.objects().counts.adimages).toBe(1);
    const served = await fetch(first.body.images['hero.png'].url);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
    expectParamError(await sb.postForm(`${ACT}/adimages`, { name: 'x' }), 'bytes');
    expectParamError(
      await sb.postForm(`${ACT}/adimages`, { bytes: Buffer.from('plain text').toString('base64') }),
      'bytes',
    );
  });

  it('creates creatives from an image hash or a picture URL and validates object_story_spec', async () => {
    const img = await sb.postForm(`${ACT}/adimages`, { bytes: PNG });
    const hash = img.body.images.bytes.hash;
    const spec = {
      page_id: '555',
      link_data: { image_hash: hash, link: 'https://example.com', message: 'Hi' },
    };
    const cr = await sb.postForm(`${ACT}/adcreatives`, { name: 'Creative A', object_story_spec: spec });
    expect(cr.status).toBe(200);
    const got = await sb.get(cr.body.id, { fields: 'name,object_story_spec' });
    expect(got.body).toEqual({ id: cr.body.id, name: 'Creative A', object_story_spec: spec });
    const byUrl = {
      page_id: '555',
      link_data: { picture: 'https://cdn.example.com/a.png', link: 'https://example.com' },
    };
    expect((await sb.postJson(`${ACT}/adcreatives`, { name: 'B', object_story_spec: byUrl })).status).toBe(
      200,
    );
    expectParamError(await sb.postForm(`${ACT}/adcreatives`, { object_story_spec: spec }), 'name');
    expectParamError(await sb.postForm(`${ACT}/adcreatives`, { name: 'C' }), 'object_story_spec');
    const badHash = { ...spec, link_data: { ...spec.link_data, image_hash: 'f'.repeat(32) } };
    expectParamError(
      await sb.postForm(`${ACT}/adcreatives`, { name: 'C', object_story_spec: badHash }),
      'image_hash',
    );
    const noPage = { link_data: spec.link_data };
    expectParamError(
      await sb.postForm(`${ACT}/adcreatives`, { name: 'C', object_story_spec: noPage }),
      'page_id',
    );
  });

  it('creates ads referencing an existing ad set and creative', async () => {
    const c = await sb.postForm(`${ACT}/campaigns`, campaign);
    const s = await sb.postForm(`${ACT}/adsets`, adset(c.body.id));
    const byUrl = {
      page_id: '555',
      link_data: { picture: 'https://cdn.example.com/a.png', link: 'https://example.com' },
    };
    const cr = await sb.postForm(`${ACT}/adcreatives`, { name: 'Cr', object_story_spec: byUrl });
    const ad = await sb.postForm(`${ACT}/ads`, {
      name: 'Ad 1',
      adset_id: s.body.id,
      creative: { creative_id: cr.body.id },
    });
    expect(ad.status).toBe(200);
    const got = await sb.get(ad.body.id, { fields: 'name,adset_id,campaign_id,creative,status' });
    expect(got.body).toEqual({
      id: ad.body.id,
      name: 'Ad 1',
      adset_id: s.body.id,
      campaign_id: c.body.id,
      creative: { id: cr.body.id },
      status: 'PAUSED',
    });
    expectParamError(
      await sb.postForm(`${ACT}/ads`, { name: 'Ad', creative: { creative_id: cr.body.id } }),
      'adset_id',
    );
    expectParamError(await sb.postForm(`${ACT}/ads`, { name: 'Ad', adset_id: s.body.id }), 'creative');
    const missing = { name: 'Ad', adset_id: s.body.id, creative: { creative_id: '999' } };
    expectParamError(await sb.postForm(`${ACT}/ads`, missing), 'creative');
  });

  it('reads objects with ?fields, always returning id, and rejects unknown fields and objects', async () => {
    const c = await sb.postForm(`${ACT}/campaigns`, campaign);
    expect((await sb.get(c.body.id)).body).toEqual({ id: c.body.id });
    expect((await sb.get(c.body.id, { fields: 'name' })).body).toEqual({ id: c.body.id, name: 'Spring' });
    const unknownField = await sb.get(c.body.id, { fields: 'name,colour' });
    expectParamError(unknownField, 'colour');
    const missing = await sb.get('120219999999999999', { fields: 'name' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect(missing.body.error.message).toMatch(
      /^Unsupported get request\. Object with ID '120219999999999999' does not exist/,
    );
    const otherVersion = await fetch(`${sb.origin}/v19.0/${c.body.id}?access_token=${sb.token}&fields=name`);
    expect(await otherVersion.json()).toEqual({ id: c.body.id, name: 'Spring' });
  });

  it('rejects missing or bad tokens with code 190 (query, body and header forms)', async () => {
    const noToken = await sb.get(`${ACT}/campaigns`, { access_token: null });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error).toMatchObject({ type: 'OAuthException', code: 190 });
    expect((await sb.get(`${ACT}/campaigns`, { access_token: 'nope' })).body.error.code).toBe(190);
    expect((await sb.postForm(`${ACT}/campaigns`, campaign, 'nope')).body.error.code).toBe(190);
    expect((await sb.postJson(`${ACT}/campaigns`, campaign, 'nope')).body.error.code).toBe(190);
    expect(
      (await sb.postJson(`${ACT}/campaigns`, { ...campaign, access_token: sb.token }, null)).status,
    ).toBe(200);
    expect(sb.sandbox.objects().counts.campaigns).toBe(1);
  });
});
