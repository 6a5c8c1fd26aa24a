import { MetaSandbox } from './sandbox';
import type { FaultConfig } from './types';

/** Standalone sandbox: META_SANDBOX_PORT (4010), META_ACCESS_TOKEN (sandbox-token), META_SANDBOX_FAULTS (JSON). */
async function main(): Promise<void> {
  const port = Number(process.env.META_SANDBOX_PORT ?? 4010);
  const host = process.env.META_SANDBOX_HOST ?? '127.0.0.1';
  const faults = process.env.META_SANDBOX_FAULTS
    ? (JSON.parse(process.env.META_SANDBOX_FAULTS) as FaultConfig)
    : {};
  const seed = process.env.META_SANDBOX_SEED ? Number(process.env.META_SANDBOX_SEED) : undefined;
  const sandbox = new MetaSandbox({
    accessToken: process.env.META_ACCESS_TOKEN ?? 'sandbox-token',
    faults,
    seed,
  });
  const { baseUrl } = await sandbox.listen(port, host);
  console.log(`meta sandbox listening on ${baseUrl}`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
