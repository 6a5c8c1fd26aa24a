import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppName, AppProcess, freePort, RedisTestContext } from '@vigil/testing';

const MODEL_SDKS = ['@anthropic-ai/sdk', '@google/genai'];
/** The OpenTelemetry SDK (not its API, which the Anthropic SDK and prom-client load anyway). */
const OTEL_SDK = [
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-trace-otlp-proto',
];
const PROBE = join(__dirname, 'fixtures', 'record-loaded-modules.cjs');

/** The npm packages a booted app had loaded by the time it exited on SIGTERM. */
async function packagesLoadedBy(
  ctx: RedisTestContext,
  app: AppName,
  portVariable: string,
  env: Record<string, string> = {},
): Promise<Set<string>> {
  const file = join(tmpdir(), `vigil-loaded-${app}-${process.pid}-${Date.now()}.json`);
  const port = await freePort();
  const child = AppProcess.start(
    app,
    ctx.env({
      ...env,
      [portVariable]: String(port),
      NODE_OPTIONS: `--require ${PROBE}`,
      LOADED_MODULES_FILE: file,
    }),
  );
  try {
    await child.waitFor(new RegExp(`vigil-${app} ready on port ${port}`));
    child.signal('SIGTERM');
    expect(await child.exited()).toEqual({ code: 0, signal: null });
  } finally {
    await child.stop();
  }
  const modules = JSON.parse(readFileSync(file, 'utf8')) as string[];
  const packages = modules.flatMap((path) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    return match ? [match[1]] : [];
  });
  return new Set(packages);
}

/** The Watcher decides deterministically: it must not even load a model SDK (docs/ARCHITECTURE.md). */
describe('what each app loads', () => {
  const ctx = new RedisTestContext('loaded-modules');
  afterAll(() => ctx.close());

  it('the built watcher boots and stops without loading any model SDK', async () => {
    const loaded = await packagesLoadedBy(ctx, 'watcher', 'WATCHER_PORT');
    expect(loaded.has('@nestjs/core')).toBe(true);
    expect(MODEL_SDKS.filter((sdk) => loaded.has(sdk))).toEqual([]);
  });

  it('the built worker boots without a model SDK (each loads at its first call), the S3 SDK on a file:// store, or the OpenTelemetry SDK', async () => {
    const loaded = await packagesLoadedBy(ctx, 'worker', 'WORKER_PORT', {
      ANTHROPIC_API_KEY: 'sk-ant-unused',
      GEMINI_API_KEY: 'unused',
    });
    expect(loaded.has('@nestjs/core')).toBe(true);
    expect(MODEL_SDKS.filter((sdk) => loaded.has(sdk))).toEqual([]);
    expect(loaded.has('@aws-sdk/client-s3')).toBe(false);
    // Traces off (no OTLP endpoint): the SDK is not even loaded (docs/observability.md).
    expect(OTEL_SDK.filter((sdk) => loaded.has(sdk))).toEqual([]);
  });

  it('the built watcher loads the OpenTelemetry SDK only when an OTLP endpoint is set', async () => {
    const port = await freePort();
    const loaded = await packagesLoadedBy(ctx, 'watcher', 'WATCHER_PORT', {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    expect(OTEL_SDK.filter((sdk) => loaded.has(sdk))).toEqual(OTEL_SDK);
  });
});
