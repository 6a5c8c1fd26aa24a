import sharp from 'sharp';
import { ModelProviders, type ModelProvider } from '@vigil/agent';
import type { ObjectStore } from '@vigil/object-store';
import { toolBinaryOf } from '@vigil/tools';
import { FakeToolGateway } from '../kinds/fake-tool-gateway';
import { AnthropicBillingFake, type BilledCall, GeminiBillingFake } from '../providers/billing-fakes';
import type { RedisTestContext } from '../redis-test-context';
import { newNoopTask } from '../task-factory';
import { SliceRunnerHarness } from './slice-runner-harness';
import { anthropicOnFake, geminiOnFake } from './billed-providers';

const KEY = 'screenshot-mission-key';

export interface ScreenshotMissionOptions {
  provider: 'anthropic' | 'gemini';
  /** Pages walked: each one navigated to (its snapshot as text), then screenshotted. */
  shots: number;
  /** Where the screenshots are kept as artifacts. */
  store: ObjectStore;
  taskId: string;
  /** Right after the screenshot of page `after`, the model reads back the saved output of page `page`'s. */
  readBack?: { after: number; page: number };
}

export interface ScreenshotMissionRun {
  /** Every model call as the fake saw the SDK's request and billed it, in order. */
  calls: BilledCall[];
  /** How each slice ended. */
  outcomes: string[];
  /** The serialized size of each request body the fake received, in bytes. */
  requestBytes: number[];
}

/** The step key of the screenshot of `page` (its saved output's key). */
export const screenshotKey = (page: number): string =>
  `browser.browser_take_screenshot:${JSON.stringify({ filename: `page-${page}.png` })}`;

/** A 1280×720 PNG of about 100 KB, different for each page (a flat page with a noisy picture on it). */
export async function screenshotPng(page: number): Promise<Buffer> {
  const picture = await sharp({
    create: {
      width: 200,
      height: 120,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  return sharp({
    create: { width: 1280, height: 720, channels: 3, background: { r: 240, g: 250 - (page % 50), b: 250 } },
  })
    .composite([{ input: picture, left: 40 + (page % 80) * 10, top: 60 }])
    .png()
    .toBuffer();
}

/** What `@playwright/mcp` answers a navigation with: the code it ran and the page's snapshot (~2 KB). */
const pageSnapshot = (page: number): string =>
  [
    '### Ran Playwright code',
    '```js',
    `await page.goto('http://127.0.0.1:8080/page-${page}');`,
    '```',
    '### Page state',
    `- Page URL: http://127.0.0.1:8080/page-${page}`,
    `- Page Title: Page ${page}`,
    '- Page Snapshot:',
    '```yaml',
    ...Array.from(
      { length: 30 },
      (_, row) => `- listitem [ref=e${row}]: row ${row} of page ${page}, a line of the table`,
    ),
    '```',
  ].join('\n');

/**
 * The browser tools of a walkthrough, faked in memory (FakeToolGateway): `browser.browser_navigate`
 * answers the page's snapshot, `browser.browser_take_screenshot` a line of text and the page as a
 * PNG image part (its bytes beside the reference, as the real MCP gateway gives them).
 */
export function browserGateway(): FakeToolGateway {
  let page = 0;
  return new FakeToolGateway([
    {
      catalogName: 'browser.browser_navigate',
      effect: 'read',
      inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
      handle: (args) => {
        page = Number(/page-(\d+)/.exec(String(args.url))?.[1] ?? 0);
        const text = pageSnapshot(page);
        return { text, raw: { content: [{ type: 'text', text }] } };
      },
    },
    {
      catalogName: 'browser.browser_take_screenshot',
      effect: 'read',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
      handle: async (args) => {
        const binary = await toolBinaryOf(await screenshotPng(page), 'image/png');
        const text = `### Result\nTook the viewport screenshot and saved it as ${String(args.filename)}`;
        return {
          text,
          raw: {
            content: [
              { type: 'text', text },
              { type: 'image', artifact: binary.ref },
            ],
          },
          binaries: [binary],
        };
      },
    },
  ]);
}

/**
 * A browser walkthrough of `shots` pages as the Worker runs it — the slice runner on the test's
 * Redis, the artifact keeper on `store` — with the runtime's provider on the real SDK against a
 * fake that bills as the provider documents (billing-fakes.ts, images priced by their pixels). The
 * fake model navigates to each page, takes its screenshot, then finishes.
 */
export async function runScreenshotMission(
  ctx: RedisTestContext,
  options: ScreenshotMissionOptions,
): Promise<ScreenshotMissionRun> {
  const { shots, readBack } = options;
  const requestBytes: number[] = [];
  const moves = Array.from({ length: shots }, (_, page) => [
    { name: 'browser__browser_navigate', args: { url: `http://127.0.0.1:8080/page-${page}` } },
    { name: 'browser__browser_take_screenshot', args: { filename: `page-${page}.png` } },
    ...(readBack?.after === page
      ? [{ name: 'read_output', args: { key: screenshotKey(readBack.page) } }]
      : []),
  ]).flat();
  const next = (call: number, body: Record<string, unknown>) => {
    requestBytes.push(Buffer.byteLength(JSON.stringify(body)));
    return moves[call] ?? { name: 'finish_task', args: { summary: `walked ${shots} pages` } };
  };
  const anthropic = options.provider === 'anthropic';
  const fake = anthropic
    ? new AnthropicBillingFake({ apiKey: KEY, next })
    : new GeminiBillingFake({ apiKey: KEY, next });
  const baseUrl = await fake.listen();
  try {
    const harness = new SliceRunnerHarness(ctx);
    const runner = harness.runner(browserGateway(), {
      providers: new FakeBilledProviders(harness, () =>
        anthropic ? anthropicOnFake(KEY, baseUrl) : geminiOnFake(KEY, baseUrl),
      ),
      outputs: options.store,
      workerId: 'screenshot-mission-worker',
    });
    await harness.tasks.create(
      options.taskId,
      newNoopTask({
        kind: 'mission',
        title: 'walk through the app',
        input: { goal: `Walk through the app's ${shots} pages and screenshot each`, tools: ['browser'] },
        exitCriteria: [{ check: 'findings_count', expected: 0 }],
        totalUnits: undefined,
        model: anthropic ? 'opus' : 'gemini',
        budgetUsd: 1_000,
      }),
    );
    const outcomes = await harness.runSlices(runner, options.taskId, shots);
    return { calls: fake.calls, outcomes, requestBytes };
  } finally {
    await fake.close();
  }
}

/** The Worker's model providers, every slice's on the real SDK against the billing fake. */
class FakeBilledProviders extends ModelProviders {
  constructor(
    harness: SliceRunnerHarness,
    private readonly provider: () => ModelProvider,
  ) {
    super(harness.sections.models, harness.sections.clocks);
  }

  override create(): ModelProvider {
    return this.provider();
  }
}
