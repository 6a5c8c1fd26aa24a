import type { KindServices } from '@vigil/kinds';
import { MetaGraphClient, type MetaGraphClientOptions } from '@vigil/meta-graph';

/** Token used when none is configured: what the local Meta sandbox accepts. */
export const SANDBOX_ACCESS_TOKEN = 'sandbox-token';

/** A Graph client for one tool call or check, from the runtime's config (never from globals). */
export function createMetaClient(
  services: KindServices,
  overrides: Partial<MetaGraphClientOptions> = {},
): MetaGraphClient {
  return new MetaGraphClient({
    baseUrl: services.config.metaApiBaseUrl,
    accessToken: services.config.metaAccessToken ?? SANDBOX_ACCESS_TOKEN,
    ...overrides,
  });
}
