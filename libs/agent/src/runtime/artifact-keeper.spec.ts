import sharp from 'sharp';
import { ObjectKeys } from '@vigil/object-store';
import { artifactIdOf } from '@vigil/tasks';
import { MemoryObjectStore } from '@vigil/testing';
import { toolBinaryOf } from '@vigil/tools';
import { MODEL_IMAGE_MAX_EDGE } from '../models/model-image';
import { OutputClaimCheck } from './output-claim-check';
import type { ToolOutcome } from './tool-executor';

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

describe('keeping a step’s images and files (OutputClaimCheck.keep)', () => {
  const task = { id: 'tsk_art', tenantId: 'acme' };
  const origin = { task, tool: 'browser.take_screenshot' };
  let store: MemoryObjectStore;
  let check: OutputClaimCheck;
  beforeEach(() => {
    store = new MemoryObjectStore();
    check = new OutputClaimCheck(store, { maxInlineOutputBytes: 4096, maxArtifactBytes: 200_000 });
  });

  it('stores each binary by its hash, lists it once, shows rasters to the model, and records no bytes', async () => {
    const image = await toolBinaryOf(await png(64, 32), 'image/png');
    const svg = await toolBinaryOf(
      Buffer.from('<svg><script>alert(1)</script></svg>'),
      'image/svg+xml',
      'a.svg',
    );
    const result = {
      content: [
        { type: 'image', artifact: image.ref },
        { type: 'image', artifact: image.ref },
      ],
    };
    const outcome: ToolOutcome = {
      key: 'k',
      ok: true,
      result,
      shown: 'two shots',
      binaries: [image, image, svg],
    };
    const kept = await check.keep(outcome, origin);
    expect(kept.binaries).toBeUndefined();
    expect(image.ref).toEqual({
      id: artifactIdOf(image.data),
      mimeType: 'image/png',
      bytes: image.data.length,
      width: 64,
      height: 32,
    });
    expect(store.keys().sort()).toEqual(
      [image.ref.id, svg.ref.id].map((id) => ObjectKeys.artifact('acme', 'tsk_art', id)).sort(),
    );
    expect(kept.artifacts).toEqual([
      { ...image.ref, tool: 'browser.take_screenshot', createdAt: expect.any(String) },
      { ...svg.ref, tool: 'browser.take_screenshot', name: 'a.svg', createdAt: expect.any(String) },
    ]);
    // Only the raster is shown to a model; the SVG is only ever named.
    expect(kept.images).toEqual([
      { id: image.ref.id, mimeType: 'image/png', width: 64, height: 32, data: image.data.toString('base64') },
    ]);
    expect(JSON.stringify(kept.result)).not.toContain(image.data.toString('base64').slice(0, 40));
    expect(kept.resultJson).toBe(JSON.stringify(result));
  });

  it('downscales an image past the providers’ limits, keeping the original as the artifact', async () => {
    const big = await toolBinaryOf(await png(3200, 1000), 'image/png');
    const kept = await check.keep(
      { key: 'k', ok: true, result: { artifact: big.ref }, binaries: [big] },
      origin,
    );
    expect(kept.images![0]).toMatchObject({ id: big.ref.id, width: MODEL_IMAGE_MAX_EDGE, height: 490 });
    expect(await store.get(ObjectKeys.artifact('acme', 'tsk_art', big.ref.id))).toEqual(big.data);
  });

  it('keeps nothing larger than MAX_ARTIFACT_BYTES, and says so', async () => {
    const huge = await toolBinaryOf(Buffer.alloc(300_000, 1), 'application/octet-stream');
    const kept = await check.keep(
      { key: 'k', ok: true, result: { artifact: huge.ref }, shown: 'x', binaries: [huge] },
      origin,
    );
    expect(store.keys()).toEqual([]);
    expect(kept.artifacts).toBeUndefined();
    expect(kept.shown).toContain('larger than MAX_ARTIFACT_BYTES (200000): not kept');
  });

  it('fails a read whose image cannot be stored; records a made write without it', async () => {
    const image = await toolBinaryOf(await png(8, 8), 'image/png');
    store.failure = 'connection refused';
    const read = await check.keep({ key: 'k', ok: true, result: {}, binaries: [image] }, origin);
    expect(read).toMatchObject({ ok: false, error: expect.stringContaining('connection refused') });
    const journal = { state: 'done' as const, attempt: 1, at: 1, result: {} };
    const write = await check.keep({ key: 'w', ok: true, result: {}, journal, binaries: [image] }, origin);
    expect(write.ok).toBe(true);
    expect(write.artifacts).toBeUndefined();
    expect(write.shown).toMatch(/could not be stored \(.*connection refused\): not kept/);
  });

  it('lists the stored whole of an output too large for Redis among the artifacts', async () => {
    const result = { rows: 'r'.repeat(10_000) };
    const kept = await check.keep({ key: 'rows:1', ok: true, result }, origin);
    expect(kept.artifacts).toEqual([
      {
        id: artifactIdOf(Buffer.from(JSON.stringify(result))),
        tool: 'browser.take_screenshot',
        name: 'output of rows:1',
        mimeType: 'application/json',
        bytes: JSON.stringify(result).length,
        createdAt: expect.any(String),
      },
    ]);
  });
});
