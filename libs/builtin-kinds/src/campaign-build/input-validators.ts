import { isBase64, isURL, ValidateBy, type ValidationOptions } from 'class-validator';

/** Custom class-validator decorators for the campaign_build input. */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Names that occur more than once among `names`. */
export function repeatedNames(names: unknown[]): string[] {
  const seen = new Set<unknown>();
  const repeated = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string') continue;
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  return [...repeated];
}

const quoted = (names: string[]): string =>
  names
    .slice(0, 5)
    .map((n) => JSON.stringify(n))
    .join(', ') + (names.length > 5 ? ` and ${names.length - 5} more` : '');

/** Array items' `name`s are unique: a duplicate is two objects of one name under one parent. */
export function HasUniqueNames(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasUniqueNames',
      validator: {
        validate: (value) =>
          repeatedNames(list(value).map((item) => (isRecord(item) ? item.name : undefined))).length === 0,
        defaultMessage: (args) =>
          `${args?.property} must have unique names; repeated: ${quoted(
            repeatedNames(list(args?.value).map((item) => (isRecord(item) ? item.name : undefined))),
          )}`,
      },
    },
    options,
  );
}

/** Absent, or an https URL. */
export function IsOptionalHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isOptionalHttpsUrl',
      validator: {
        validate: (value) =>
          value === undefined ||
          (typeof value === 'string' && isURL(value, { protocols: ['https'], require_protocol: true })),
        defaultMessage: (args) => `${args?.property} must be an https URL`,
      },
    },
    options,
  );
}

/** Exactly one of `imageUrl` and `imageBase64` is set (put on `imageUrl`). */
export function HasExactlyOneImageSource(options?: ValidationOptions): PropertyDecorator {
  const count = (object: object): number =>
    ['imageUrl', 'imageBase64'].filter((key) => (object as Record<string, unknown>)[key] !== undefined)
      .length;
  return ValidateBy(
    {
      name: 'hasExactlyOneImageSource',
      validator: {
        validate: (_value, args) => count(args!.object) === 1,
        defaultMessage: (args) =>
          `imageUrl or imageBase64: exactly one is required, got ${count(args!.object) === 0 ? 'neither' : 'both'}`,
      },
    },
    options,
  );
}

/** Decoded size of a base64 string, without decoding it. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

const IMAGE_MAGIC: Buffer[] = [
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), // PNG
  Buffer.from([0xff, 0xd8, 0xff]), // JPEG
  Buffer.from('GIF8', 'latin1'),
];

function imageProblem(value: unknown, maxBytes: number): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length === 0 || !isBase64(value)) return 'must be a base64 string';
  const size = base64Bytes(value);
  if (size > maxBytes) return `must decode to at most ${maxBytes} bytes (1.5 MB), got ${size}`;
  const head = Buffer.from(value.slice(0, 16), 'base64');
  if (!IMAGE_MAGIC.some((magic) => head.subarray(0, magic.length).equals(magic))) {
    return 'must be a PNG, JPEG or GIF image';
  }
  return null;
}

/** Absent, or base64 image bytes of at most `maxBytes`. */
export function IsOptionalBase64Image(maxBytes: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isOptionalBase64Image',
      validator: {
        validate: (value) => imageProblem(value, maxBytes) === null,
        defaultMessage: (args) => `${args?.property} ${imageProblem(args?.value, maxBytes)}`,
      },
    },
    options,
  );
}

/** Absent, or a targeting object with a non-empty `geo_locations` object (Meta requires one). */
export function IsOptionalTargeting(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isOptionalTargeting',
      validator: {
        validate: (value) =>
          value === undefined ||
          (isRecord(value) && isRecord(value.geo_locations) && Object.keys(value.geo_locations).length > 0),
        defaultMessage: (args) =>
          `${args?.property} must be an object with a non-empty geo_locations object, e.g. {"geo_locations":{"countries":["US"]}}`,
      },
    },
    options,
  );
}

/** Ad names of a whole build (campaigns → adSets → ads). */
function adNames(campaigns: unknown): unknown[] {
  return list(campaigns).flatMap((campaign) =>
    list(isRecord(campaign) ? campaign.adSets : undefined).flatMap((adSet) =>
      list(isRecord(adSet) ? adSet.ads : undefined).map((ad) => (isRecord(ad) ? ad.name : undefined)),
    ),
  );
}

/** Class-level bound: the campaigns hold at most `max` ads in total (put on `campaigns`). */
export function HasAtMostAdsInTotal(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasAtMostAdsInTotal',
      validator: {
        validate: (value) => adNames(value).length <= max,
        defaultMessage: (args) =>
          `${args?.property} must hold at most ${max} ads in total, got ${adNames(args?.value).length}`,
      },
    },
    options,
  );
}

/**
 * Ad names are unique across the build (put on `campaigns`): creatives and images are named after
 * their ad and live directly under the ad account, so one name in two ad sets would be a duplicate.
 */
export function HasUniqueAdNames(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasUniqueAdNames',
      validator: {
        validate: (value) => repeatedNames(adNames(value)).length === 0,
        defaultMessage: (args) =>
          `${args?.property} must use each ad name once across the whole build (creatives are named after their ad and live under the ad account); repeated: ${quoted(repeatedNames(adNames(args?.value)))}`,
      },
    },
    options,
  );
}
