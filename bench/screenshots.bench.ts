import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactKeeper, type ToolOutcome } from '@vigil/agent';
import { FileObjectStore, S3ObjectStore, type ObjectStore } from '@vigil/object-store';
import { toolBinaryOf } from '@vigil/tools';
import {
  MemoryObjectStore,
  RedisTestContext,
  runScreenshotMission,
  screenshotPng,
  startS3Server,
  useAwsEnvironment,
  type ScreenshotMissionRun,
} from '@vigil/testing';
import { memorySnapshot } from './lib/redis-memory';
import type { Bench, BenchResults } from './lib/result';
import { median, round, timed } from './lib/stats';

const SHOTS = 30;
const SCREENSHOT_TOOL = 'browser__browser_take_screenshot';

/**
 * Issue 23, a browser walkthrough's costs (docs/models.md, "Images"; docs/api.md, "Artifacts"):
 * a mission of 30 pages — navigate (a ~2 KB snapshot), then a 1280×720 PNG screenshot of ~100 KB —
 * on the Worker's slice runner (runScreenshotMission: real Redis, the artifact keeper, each real
 * SDK against a fake that bills as the provider documents, images by their pixels).
 * - Redis bytes a screenshot step leaves: its action entry, its saved output and its artifact list
 *   entry as stored (the reference only, no base64), and MEMORY USAGE of the task's keys over 30
 *   pages minus over 10, per page (a navigation and a screenshot), with the keys counted.
 * - Request bytes per model call: how the body the SDK sends grows, then stays within the window
 *   (VISION_MAX_IMAGES images, older results trimmed in batches); the cache-read share of input.
 * - Artifact write time per image: ArtifactKeeper.keep (store by SHA-256, prepare the model's image)
 *   on the file driver and on the S3 driver (the AWS SDK against s3rver), one image each in turn.
 * `--quick`: 20 images per driver instead of 60.
 */
export const runScreenshotsBench: Bench = async ({ quick, log }) => {
  const results: BenchResults = {};
  const ctx = new RedisTestContext('bench-screenshots', { VISION_MAX_IMAGES: '3' });
  try {
    log('screenshots: Redis bytes of a screenshot step');
    Object.assign(results, await redisBytes(ctx));
    for (const provider of ['anthropic', 'gemini'] as const) {
      log(`screenshots: request bytes over ${SHOTS} screenshots (${provider})`);
      const run = await runScreenshotMission(ctx, {
        provider,
        shots: SHOTS,
        store: new MemoryObjectStore(),
        taskId: `tsk_bench_requests_${provider}`,
      });
      results[`screenshots.request_bytes_${provider}`] = requestFigures(run);
    }
  } finally {
    await ctx.close();
  }
  log('screenshots: artifact write time, file and S3 drivers');
  Object.assign(results, await artifactWrites(quick ? 20 : 60));
  return results;
};

async function redisBytes(ctx: RedisTestContext): Promise<BenchResults> {
  const taskBytes = async (pages: number) => {
    const taskId = `tsk_bench_bytes_${pages}`;
    await runScreenshotMission(ctx, {
      provider: 'anthropic',
      shots: pages,
      store: new MemoryObjectStore(),
      taskId,
    });
    const keys = (await ctx.redis.keys(`${ctx.keys.task(taskId)}*`)).length;
    return { taskId, keys, bytes: (await memorySnapshot(ctx.redis, ctx.prefix)).byTask.get(taskId) ?? 0 };
  };
  const few = await taskBytes(10);
  const many = await taskBytes(SHOTS);
  const actions = (await ctx.redis.lrange(ctx.keys.actions(many.taskId), 0, -1)).map((raw) => ({
    raw,
    action: JSON.parse(raw) as { tool: string; key: string },
  }));
  const artifacts = await ctx.redis.lrange(ctx.keys.artifacts(many.taskId), 0, -1);
  const shots = actions.filter(({ action }) => action.tool === SCREENSHOT_TOOL);
  // What the step stores, and what it would store were the tool's answer its text alone.
  const withoutImage = (json: string) =>
    JSON.stringify(JSON.parse(json), (_key, value: unknown) =>
      Array.isArray(value) ? value.filter((part) => !(part as { artifact?: unknown })?.artifact) : value,
    );
  const measured = await Promise.all(
    shots.map(async ({ raw, action }, i) => {
      const output = (await ctx.redis.hget(ctx.keys.outputs(many.taskId), action.key)) ?? '';
      const step = Buffer.byteLength(raw) + Buffer.byteLength(output) + Buffer.byteLength(artifacts[i] ?? '');
      const textOnly = Buffer.byteLength(withoutImage(raw)) + Buffer.byteLength(withoutImage(output));
      return { step, image: step - textOnly };
    }),
  );
  const mean = (values: number[]) => round(values.reduce((a, b) => a + b, 0) / values.length);
  const png = (await screenshotPng(0)).length;
  return {
    'screenshots.redis_bytes_per_screenshot_step': {
      value: Math.max(...measured.map((m) => m.image)),
      unit: 'bytes',
      target: '<= 1024',
      note: `what a screenshot adds to its step in Redis, the largest of ${shots.length}: the reference in the action entry and the saved output, and the artifact list entry (a ${png}-byte PNG each; no base64)`,
      details: {
        imageMeanBytes: mean(measured.map((m) => m.image)),
        wholeStepMaxBytes: Math.max(...measured.map((m) => m.step)),
        wholeStepNote:
          "action entry + saved output + artifact entry, the tool's text, step key, args and timings included",
        pngBytes: png,
        memoryUsagePerPageBytes: round((many.bytes - few.bytes) / (SHOTS - 10)),
        memoryUsagePerPageNote:
          'MEMORY USAGE of the task keys, 30 pages minus 10, per page (navigate with its ~2 KB snapshot + screenshot)',
        taskKeys: { pages_10: few.keys, [`pages_${SHOTS}`]: many.keys },
      },
    },
  };
}

function requestFigures(run: ScreenshotMissionRun): BenchResults[string] {
  const bytes = run.requestBytes;
  const last = bytes.slice(-20);
  const firstSlice = bytes.slice(0, 14);
  const total = (pick: (usage: ScreenshotMissionRun['calls'][number]['usage']) => number) =>
    run.calls.reduce((sum, call) => sum + pick(call.usage), 0);
  return {
    value: round(Math.max(...last) / Math.max(...firstSlice)),
    unit: 'ratio',
    target: 'flat (~1.0)',
    note: `largest request of the last 20 calls ÷ largest of the first slice's 14, over ${run.calls.length} calls of a ${SHOTS}-screenshot walkthrough`,
    details: {
      calls: run.calls.length,
      last20MaxBytes: Math.max(...last),
      last20MinBytes: Math.min(...last),
      last20MaxOverMin: round(Math.max(...last) / Math.min(...last)),
      firstSliceMaxBytes: Math.max(...firstSlice),
      meanBytes: round(bytes.reduce((a, b) => a + b, 0) / bytes.length),
      cacheReadShareOfInput: round(total((u) => u.cacheRead) / total((u) => u.prompt)),
      bytesPerCall: bytes,
    },
  };
}

async function artifactWrites(images: number): Promise<BenchResults> {
  const server = await startS3Server('vigil-bench');
  const restoreEnv = useAwsEnvironment(server);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-artifacts-'));
  try {
    const drivers: Record<'file' | 's3', ObjectStore> = {
      file: new FileObjectStore(dir),
      s3: new S3ObjectStore({
        url: `s3://${server.bucket}/bench`,
        endpoint: server.endpoint,
        forcePathStyle: true,
      }),
    };
    const ms: Record<'file' | 's3', number[]> = { file: [], s3: [] };
    const task = { id: 'tsk_bench_artifacts', tenantId: 'bench' };
    // One warm-up write each (the S3 driver loads the AWS SDK on first use), then pairs in turn.
    for (let i = -1; i < images; i++) {
      for (const name of i % 2 === 0 ? (['file', 's3'] as const) : (['s3', 'file'] as const)) {
        const outcome: ToolOutcome = {
          key: `shot:${name}:${i}`,
          ok: true,
          result: {},
          binaries: [
            await toolBinaryOf(await screenshotPng(1000 + 2 * i + (name === 's3' ? 1 : 0)), 'image/png'),
          ],
        };
        const keeper = new ArtifactKeeper(drivers[name], 10_000_000);
        const { ms: took, result } = await timed(() => keeper.keep(outcome, { task, tool: 'browser.shot' }));
        if (!result.artifacts?.length) throw new Error(`${name}: the screenshot was not kept`);
        if (i >= 0) ms[name].push(took);
      }
    }
    const file = median(ms.file);
    const s3 = median(ms.s3);
    return {
      'screenshots.artifact_write_s3_over_file': {
        value: round(s3 / file),
        unit: 'ratio',
        note: `median ms per ~100 KB screenshot kept (ArtifactKeeper.keep), S3 driver (AWS SDK → s3rver on loopback) ÷ file driver, ${images} each, in turn`,
        details: { fileMsPerImage: round(file), s3MsPerImage: round(s3), images },
      },
    };
  } finally {
    restoreEnv();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
