import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  HasAtMostAdsInTotal,
  HasExactlyOneImageSource,
  HasUniqueAdNames,
  HasUniqueNames,
  IsOptionalBase64Image,
  IsOptionalHttpsUrl,
  IsOptionalTargeting,
} from './input-validators';
import {
  BILLING_EVENTS,
  OBJECTIVES,
  OPTIMIZATION_GOALS,
  SPECIAL_AD_CATEGORIES,
  type Objective,
} from '@vigil/meta-graph';

export const CAMPAIGN_BUILD_LIMITS = {
  campaigns: 10,
  adSetsPerCampaign: 50,
  adsPerAdSet: 50,
  adsInTotal: 500,
  nameLength: 200,
  messageLength: 2000,
  minDailyBudgetCents: 100,
  imageBytes: 1.5 * 1024 * 1024,
} as const;

/** Values used when an optional field is left out. */
export const CAMPAIGN_BUILD_DEFAULTS = {
  billingEvent: 'IMPRESSIONS',
  optimizationGoal: 'LINK_CLICKS',
  targeting: (): Record<string, unknown> => ({ geo_locations: { countries: ['US'] } }),
} as const;

const L = CAMPAIGN_BUILD_LIMITS;
const NOT_BLANK = /\S/;
const notBlank = { message: '$property must not be blank' };

export class AdSpec {
  @IsString()
  @Length(1, L.nameLength)
  @Matches(NOT_BLANK, notBlank)
  name!: string;

  @HasExactlyOneImageSource()
  @IsOptionalHttpsUrl()
  imageUrl?: string;

  @IsOptionalBase64Image(L.imageBytes)
  imageBase64?: string;

  @IsString()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  link!: string;

  @IsString()
  @MaxLength(L.messageLength)
  message!: string;
}

export class AdSetSpec {
  @IsString()
  @Length(1, L.nameLength)
  @Matches(NOT_BLANK, notBlank)
  name!: string;

  @IsInt()
  @Min(L.minDailyBudgetCents)
  dailyBudgetCents!: number;

  @IsOptional()
  @IsIn(BILLING_EVENTS)
  billingEvent?: string = CAMPAIGN_BUILD_DEFAULTS.billingEvent;

  @IsOptional()
  @IsIn(OPTIMIZATION_GOALS)
  optimizationGoal?: string = CAMPAIGN_BUILD_DEFAULTS.optimizationGoal;

  @IsOptionalTargeting()
  targeting?: Record<string, unknown> = CAMPAIGN_BUILD_DEFAULTS.targeting();

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(L.adsPerAdSet)
  @HasUniqueNames()
  @ValidateNested({ each: true })
  @Type(() => AdSpec)
  ads!: AdSpec[];
}

export class CampaignSpec {
  @IsString()
  @Length(1, L.nameLength)
  @Matches(NOT_BLANK, notBlank)
  name!: string;

  @IsIn(OBJECTIVES)
  objective!: Objective;

  @IsOptional()
  @IsArray()
  @IsIn(SPECIAL_AD_CATEGORIES, { each: true })
  specialAdCategories?: string[] = [];

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(L.adSetsPerCampaign)
  @HasUniqueNames()
  @ValidateNested({ each: true })
  @Type(() => AdSetSpec)
  adSets!: AdSetSpec[];
}

/** What a campaign_build task builds: campaigns → ad sets → ads (with creatives and images), all PAUSED. */
export class CampaignBuildInput {
  @IsString()
  @Matches(/^act_\d+$/, { message: '$property must be an ad account id like act_1234567890' })
  adAccountId!: string;

  @IsString()
  @Matches(/^\d+$/, { message: '$property must be a numeric Facebook page id' })
  pageId!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(L.campaigns)
  @HasUniqueNames()
  @HasAtMostAdsInTotal(L.adsInTotal)
  @HasUniqueAdNames()
  @ValidateNested({ each: true })
  @Type(() => CampaignSpec)
  campaigns!: CampaignSpec[];
}
