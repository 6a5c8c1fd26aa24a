// The demos talk to Vigil through the typed client (libs/client), loaded from the build they run,
// as any program of a user would (docs/cli.md, "The typed client").
import { createRequire } from 'node:module';
import { join } from 'node:path';

export function vigilClient({ root, dist, baseUrl, apiKey }) {
  const { VigilClient } = createRequire(import.meta.url)(join(root, dist, 'libs/client/src/index.js'));
  return new VigilClient({ baseUrl, apiKey });
}
