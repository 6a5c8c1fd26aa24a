import { InvalidTaskInputError } from '@vigil/tasks';
import { validateKindInput } from '@vigil/kinds';
import { campaignBuildKind } from './campaign-build.kind';
import type { CampaignBuildInput } from './campaign-build.input';
import { campaignBuildDemoInput } from './demo-input';
import { onePixelPngBase64 } from './demo-png';

type Plain = Record<string, any>;

const demo = (): Plain => JSON.parse(JSON.stringify(campaignBuildDemoInput({ adSets: 2, adsPerSet: 2 })));

function problems(input: unknown): string[] {
  try {
    validateKindInput(campaignBuildKind, input);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidTaskInputError);
    return (err as InvalidTaskInputError).problems;
  }
  throw new Error('input was accepted');
}

function expectProblem(input: unknown, ...fragments: string[]): void {
  const found = problems(input);
  for (const fragment of fragments) {
    expect(found.some((p) => p.includes(fragment)) ? fragment : found).toBe(fragment);
  }
}

describe('campaign_build input', () => {
  it('accepts the demo input and fills in defaults', () => {
    const input = demo();
    const adSet = input.campaigns[0].adSets[0];
    delete adSet.billingEvent;
    delete adSet.optimizationGoal;
    delete adSet.targeting;
    delete input.campaigns[0].specialAdCategories;
    const valid = validateKindInput(campaignBuildKind, input) as CampaignBuildInput;
    expect(valid.campaigns[0].specialAdCategories).toEqual([]);
    expect(valid.campaigns[0].adSets[0]).toMatchObject({
      billingEvent: 'IMPRESSIONS',
      optimizationGoal: 'LINK_CLICKS',
      targeting: { geo_locations: { countries: ['US'] } },
    });
    expect(validateKindInput(campaignBuildKind, campaignBuildDemoInput())).toBeDefined();
  });

  it('accepts an https imageUrl instead of base64 bytes', () => {
    const input = demo();
    const ad = input.campaigns[0].adSets[0].ads[0];
    delete ad.imageBase64;
    ad.imageUrl = 'https://cdn.example.com/hero.jpg';
    expect(() => validateKindInput(campaignBuildKind, input)).not.toThrow();
  });

  it('names the field for malformed ids', () => {
    expectProblem(
      { ...demo(), adAccountId: '12345' },
      'input.adAccountId must be an ad account id like act_',
    );
    expectProblem({ ...demo(), pageId: 'my-page' }, 'input.pageId must be a numeric Facebook page id');
  });

  it('refuses empty and oversized lists', () => {
    const noAdSets = demo();
    noAdSets.campaigns[0].adSets = [];
    expectProblem(noAdSets, 'input.campaigns[0].adSets must contain at least 1 elements');
    expectProblem({ ...demo(), campaigns: [] }, 'input.campaigns must contain at least 1 elements');
    const many = campaignBuildDemoInput({ campaigns: 11, adSets: 1, adsPerSet: 1 });
    expectProblem(many, 'input.campaigns must contain no more than 10 elements');
    expectProblem(
      campaignBuildDemoInput({ adSets: 51, adsPerSet: 1 }),
      'input.campaigns[0].adSets must contain no more than 50 elements',
    );
  });

  it('refuses 10,000 ads, per ad set and in total', () => {
    const input = demo();
    const ad = input.campaigns[0].adSets[0].ads[0];
    input.campaigns[0].adSets[0].ads = Array.from({ length: 10_000 }, (_, n) => ({ ...ad, name: `Ad ${n}` }));
    expectProblem(
      input,
      'input.campaigns[0].adSets[0].ads must contain no more than 50 elements',
      'input.campaigns must hold at most 500 ads in total, got 10002',
    );
  });

  it('refuses more than 500 ads in total even when every list is within bounds', () => {
    const input = campaignBuildDemoInput({ campaigns: 2, adSets: 26, adsPerSet: 10 });
    expectProblem(input, 'input.campaigns must hold at most 500 ads in total, got 520');
  });

  it('names the field for wrong types', () => {
    const input = demo();
    input.campaigns[0].adSets[1].dailyBudgetCents = '2500';
    input.campaigns[0].adSets[0].ads[1].message = 42;
    input.campaigns[0].objective = 'TRAFFIC';
    expectProblem(
      input,
      'input.campaigns[0].adSets[1].dailyBudgetCents must be an integer number',
      'input.campaigns[0].adSets[0].ads[1].message must be a string',
      'input.campaigns[0].objective must be one of the following values',
    );
    expectProblem({ ...demo(), campaigns: 'all of them' }, 'input.campaigns must be an array');
  });

  it('checks budgets, names, texts and targeting', () => {
    const input = demo();
    const adSet = input.campaigns[0].adSets[0];
    adSet.dailyBudgetCents = 99;
    adSet.name = 'x'.repeat(201);
    adSet.targeting = { age_min: 18 };
    adSet.ads[0].message = 'm'.repeat(2001);
    adSet.ads[1].link = 'not a url';
    input.campaigns[0].adSets[1].name = '   ';
    expectProblem(
      input,
      'input.campaigns[0].adSets[0].dailyBudgetCents must not be less than 100',
      'input.campaigns[0].adSets[0].name must be shorter than or equal to 200 characters',
      'input.campaigns[0].adSets[0].targeting must be an object with a non-empty geo_locations',
      'input.campaigns[0].adSets[0].ads[0].message must be shorter than or equal to 2000 characters',
      'input.campaigns[0].adSets[0].ads[1].link must be a URL address',
      'input.campaigns[0].adSets[1].name must not be blank',
    );
  });

  it('needs exactly one image source per ad, https URLs and small base64 images', () => {
    const input = demo();
    const [a, b] = input.campaigns[0].adSets[0].ads;
    const [c, d] = input.campaigns[0].adSets[1].ads;
    a.imageUrl = 'https://cdn.example.com/a.png';
    delete b.imageBase64;
    delete c.imageBase64;
    c.imageUrl = 'http://cdn.example.com/c.png';
    d.imageBase64 = Buffer.alloc(1.6 * 1024 * 1024).toString('base64');
    expectProblem(
      input,
      'input.campaigns[0].adSets[0].ads[0].imageUrl or imageBase64: exactly one is required, got both',
      'input.campaigns[0].adSets[0].ads[1].imageUrl or imageBase64: exactly one is required, got neither',
      'input.campaigns[0].adSets[1].ads[0].imageUrl must be an https URL',
      'input.campaigns[0].adSets[1].ads[1].imageBase64 must decode to at most 1572864 bytes',
    );
    const notImage = demo();
    notImage.campaigns[0].adSets[0].ads[0].imageBase64 = Buffer.from('hello world!').toString('base64');
    notImage.campaigns[0].adSets[0].ads[1].imageBase64 = 'not base64!';
    expectProblem(
      notImage,
      'input.campaigns[0].adSets[0].ads[0].imageBase64 must be a PNG, JPEG or GIF image',
      'input.campaigns[0].adSets[0].ads[1].imageBase64 must be a base64 string',
    );
    expect(onePixelPngBase64(1)).not.toBe(onePixelPngBase64(2));
  });

  it('needs names unique among siblings, and ad names unique across the build', () => {
    const input = demo();
    input.campaigns[0].adSets[1].name = input.campaigns[0].adSets[0].name;
    input.campaigns[0].adSets[0].ads[1].name = input.campaigns[0].adSets[0].ads[0].name;
    expectProblem(
      input,
      'input.campaigns[0].adSets must have unique names; repeated: "Ad set 1"',
      'input.campaigns[0].adSets[0].ads must have unique names; repeated: "Ad 1.1"',
    );
    const acrossAdSets = demo();
    acrossAdSets.campaigns[0].adSets[1].ads[0].name = 'Ad 1.1';
    expectProblem(acrossAdSets, 'input.campaigns must use each ad name once across the whole build');
  });

  it('refuses unknown fields', () => {
    const input = demo();
    input.campaigns[0].adSets[0].ads[0].headline = 'Hi';
    input.budget = 5;
    expectProblem(
      input,
      'input.campaigns[0].adSets[0].ads[0].headline should not exist',
      'input.budget should not exist',
    );
  });
});
