import type { CampaignBuildInput } from './campaign-build.input';
import { onePixelPngBase64 } from './demo-png';

export interface CampaignBuildDemoOptions {
  campaigns?: number;
  adSets?: number;
  adsPerSet?: number;
  adAccountId?: string;
  pageId?: string;
}

const CAMPAIGN_NAMES = [
  'Spring Sale 2025',
  'Summer Launch',
  'Back to School',
  'Black Friday',
  'Holiday Gifts',
];
const MARKETS = [
  ['US'],
  ['CA'],
  ['GB'],
  ['AU'],
  ['US', 'CA'],
  ['DE', 'AT'],
  ['FR'],
  ['NL', 'BE'],
  ['SE', 'NO'],
];
const AGES: [number, number][] = [
  [18, 24],
  [25, 34],
  [35, 44],
  [45, 54],
  [55, 65],
];
const HOOKS = [
  'Fresh styles are here — free shipping on every order this week.',
  'Our best sellers are back in stock. Grab yours before they go.',
  'Save 20% on everything new with code SPRING20.',
  'Comfort that lasts all day, now in five new colours.',
];

function campaignName(i: number): string {
  const base = CAMPAIGN_NAMES[i % CAMPAIGN_NAMES.length];
  return i < CAMPAIGN_NAMES.length ? base : `${base} ${Math.floor(i / CAMPAIGN_NAMES.length) + 1}`;
}

/**
 * A realistic build: `campaigns` × `adSets` × `adsPerSet`, every ad with its own tiny PNG (base64).
 * Ad sets are named `Ad set 1`…, ads `Ad 3.2` (ad set 3, ad 2; prefixed by the campaign number when
 * there are several), so names are unique across the build.
 */
export function campaignBuildDemoInput(options: CampaignBuildDemoOptions = {}): CampaignBuildInput {
  const {
    campaigns = 1,
    adSets = 12,
    adsPerSet = 3,
    adAccountId = 'act_1234567890',
    pageId = '1122334455',
  } = options;
  let pixel = 0;
  return {
    adAccountId,
    pageId,
    campaigns: Array.from({ length: campaigns }, (_, i) => ({
      name: campaignName(i),
      objective: 'OUTCOME_TRAFFIC',
      specialAdCategories: [],
      adSets: Array.from({ length: adSets }, (_, j) => {
        const [ageMin, ageMax] = AGES[j % AGES.length];
        return {
          name: `Ad set ${j + 1}`,
          dailyBudgetCents: 1500 + 500 * (j % 4),
          billingEvent: 'IMPRESSIONS',
          optimizationGoal: 'LINK_CLICKS',
          targeting: {
            geo_locations: { countries: MARKETS[j % MARKETS.length] },
            age_min: ageMin,
            age_max: ageMax,
          },
          ads: Array.from({ length: adsPerSet }, (_, k) => {
            const label = `${campaigns > 1 ? `${i + 1}.` : ''}${j + 1}.${k + 1}`;
            pixel += 1;
            return {
              name: `Ad ${label}`,
              imageBase64: onePixelPngBase64((pixel * 0x9e3779) & 0xffffff),
              link: `https://shop.example.com/spring?utm_campaign=c${i + 1}&utm_content=ad-${label}`,
              message: HOOKS[(j + k) % HOOKS.length],
            };
          }),
        };
      }),
    })),
  };
}
