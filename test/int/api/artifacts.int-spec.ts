import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { OutputClaimCheck } from '@vigil/agent';
import { FileObjectStore } from '@vigil/object-store';
import { StepRecorder, TaskLifecycle } from '@vigil/tasks';
import { type HttpClient, RedisTestContext, TEST_CLAIM } from '@vigil/testing';
import { toolBinaryOf } from '@vigil/tools';
import { InProcessApi } from '../../support/in-process-api';

/**
 * A task's artifacts over HTTP (docs/api.md, "Artifacts"): kept as the Worker keeps them
 * (OutputClaimCheck into a `file://` store, listed by record-step.lua), then listed and served
 * with their type and `nosniff`; only a raster image by its magic bytes inline, an SVG with a
 * script — even one a tool called image/png — an attachment under `Content-Security-Policy:
 * sandbox`; a non-hash id a 400, another task's or tenant's a 404.
 */
describe('artifacts over HTTP', () => {
  const directory = mkdtempSync(join(tmpdir(), 'vigil-artifacts-'));
  const ctx = new RedisTestContext('artifacts-api', {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    OBJECT_STORE_URL: `file://${directory}`,
  });
  const store = new FileObjectStore(directory);
  let api: InProcessApi;
  let acme: HttpClient;
  let globex: HttpClient;
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
  );

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
    globex = acme.withKey('globex-key-456');
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const fetchBytes = (path: string, key = 'acme-key-123') =>
    fetch(`${acme.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('lists and serves them, raster images inline, anything else as a sandboxed attachment', async () => {
    const created = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
    const task = { id: created.body.id as string, tenantId: 'acme' };
    await api.app.get(TaskLifecycle).claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#cc3333' } })
      .png()
      .toBuffer();
    const binaries = [
      await toolBinaryOf(png, 'image/png'),
      await toolBinaryOf(svg, 'image/svg+xml', 'chart.svg'),
      await toolBinaryOf(Buffer.concat([svg, Buffer.from(' ')]), 'image/png'),
    ];
    const keeper = new OutputClaimCheck(store, { maxInlineOutputBytes: 65_536, maxArtifactBytes: 1_000_000 });
    const outcome = await keeper.keep(
      { key: 'shot:1', ok: true, result: binaries.map((b) => ({ artifact: b.ref })), binaries },
      { task, tool: 'browser.take_screenshot' },
    );
    await api.app.get(StepRecorder).record({
      taskId: task.id,
      attempt: 1,
      action: {
        attempt: 1,
        slice: 1,
        tool: 'browser__take_screenshot',
        key: 'shot:1',
        args: {},
        result: outcome.result,
        startedAt: 1,
        durationMs: 1,
      },
      succeeded: true,
      currentStep: 'shot',
      artifacts: outcome.artifacts,
    });

    const list = await acme.get(`/v1/tasks/${task.id}/artifacts`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(
      binaries.map((b) =>
        expect.objectContaining({
          id: b.ref.id,
          step: 1,
          tool: 'browser.take_screenshot',
          mimeType: b.ref.mimeType,
          bytes: b.ref.bytes,
        }),
      ),
    );
    expect(list.body.data[1].name).toBe('chart.svg');

    const image = await fetchBytes(`/v1/tasks/${task.id}/artifacts/${binaries[0].ref.id}`);
    expect(image.status).toBe(200);
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(binaries[0].ref.id);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; filename="[0-9a-f]{16}\.png"$/);
    expect(image.headers.get('content-security-policy')).not.toMatch(/sandbox/);

    for (const [binary, type] of [
      [binaries[1], 'image/svg+xml'],
      [binaries[2], 'image/png'],
    ] as const) {
      const served = await fetchBytes(`/v1/tasks/${task.id}/artifacts/${binary.ref.id}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(served.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
      expect(Buffer.from(await served.arrayBuffer())).toEqual(binary.data);
    }

    const notAHash = await acme.get(`/v1/tasks/${task.id}/artifacts/..%2F..%2Fetc%2Fpasswd`);
    expect(notAHash.status).toBe(400);
    expect((await acme.get(`/v1/tasks/${task.id}/artifacts/${'A'.repeat(64)}`)).status).toBe(400);
    expect((await acme.get(`/v1/tasks/${task.id}/artifacts/${'0'.repeat(64)}`)).status).toBe(404);
    // Another tenant sees neither the list nor the bytes.
    expect((await globex.get(`/v1/tasks/${task.id}/artifacts`)).status).toBe(404);
    expect(
      (await fetchBytes(`/v1/tasks/${task.id}/artifacts/${binaries[0].ref.id}`, 'globex-key-456')).status,
    ).toBe(404);
    // An artifact of another task of the same tenant is not this task's.
    const other = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 1 } });
    expect((await acme.get(`/v1/tasks/${other.body.id}/artifacts/${binaries[0].ref.id}`)).status).toBe(404);
    expect((await acme.get(`/v1/tasks/${other.body.id}/artifacts`)).body).toEqual({ data: [] });
  });
});
