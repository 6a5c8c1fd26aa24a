/** Logical step keys (the idempotency key's second half) and how steps are named in messages. */
export const stepKeys = {
  campaign: (i: number): string => `campaign:${i}`,
  adSet: (i: number, j: number): string => `adset:${i}:${j}`,
  image: (i: number, j: number, k: number): string => `image:${i}:${j}:${k}`,
  creative: (i: number, j: number, k: number): string => `creative:${i}:${j}:${k}`,
  ad: (i: number, j: number, k: number): string => `ad:${i}:${j}:${k}`,
  verifyAdSet: (i: number, j: number): string => `verify:${i}:${j}`,
  verifyCampaign: (i: number): string => `verify:${i}`,
};

/** `create_ad_set {campaign:0, adSet:3}`. */
export function describeStep(tool: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([name, value]) => `${name}:${String(value)}`);
  return `${tool} {${parts.join(', ')}}`;
}
