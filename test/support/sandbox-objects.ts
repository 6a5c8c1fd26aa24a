import type { MetaSandbox } from '@vigil/meta-sandbox';

/** What one campaign build of the demo input creates in the sandbox, by type. */
export const CAMPAIGN_OBJECTS = { campaigns: 1, adsets: 12, adimages: 36, adcreatives: 36, ads: 36 };

/** The sandbox's objects of one ad account (`act_<digits>`), by type. */
export function objectsOf(sandbox: MetaSandbox, accountId: string): typeof CAMPAIGN_OBJECTS {
  const snapshot = sandbox.objects();
  const digits = accountId.slice(4);
  const count = (type: string) =>
    snapshot.objects[type].filter((o) => String(o.account_id) === digits).length;
  return {
    campaigns: count('campaigns'),
    adsets: count('adsets'),
    adimages: count('adimages'),
    adcreatives: count('adcreatives'),
    ads: count('ads'),
  };
}
