import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { MetaApiError, MetaGraphClient } from '@vigil/meta-graph';
import { getIfExists } from './read-back.shared';

describe('getIfExists', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ accessToken: 'read-token' });
  });
  afterAll(() => sb.close());

  it('answers null only for an object Meta says does not exist; a bad token is an error', async () => {
    const client = new MetaGraphClient({ baseUrl: sb.baseUrl, accessToken: 'read-token', backoffMs: 1 });
    const signal = new AbortController().signal;
    const campaign = await client.createCampaign('act_7007', {
      name: 'Exists',
      objective: 'OUTCOME_TRAFFIC',
      specialAdCategories: [],
      status: 'PAUSED',
    });
    expect(await getIfExists(client, campaign.id, ['id', 'name'], signal)).toMatchObject({ name: 'Exists' });
    expect(await getIfExists(client, '120219999999999999', ['id'], signal)).toBeNull();

    const wrongToken = new MetaGraphClient({ baseUrl: sb.baseUrl, accessToken: 'wrong', backoffMs: 1 });
    await expect(getIfExists(wrongToken, campaign.id, ['id'], signal)).rejects.toBeInstanceOf(MetaApiError);
  });
});
