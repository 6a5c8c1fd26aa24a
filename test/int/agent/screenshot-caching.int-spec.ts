import { MemoryObjectStore, RedisTestContext, runScreenshotMission, type WireBody } from '@vigil/testing';

/** Images a request carries: Anthropic `image` blocks, Gemini `inlineData` parts. */
const imagesIn = (body: WireBody): number =>
  (JSON.stringify(body).match(/"type":"image"|"inlineData"/g) ?? []).length;

const SHOTS = 30;
const VISION_MAX_IMAGES = 3;

/**
 * A browser walkthrough of 30 screenshots on the Worker's slice runner (docs/models.md, "Images"),
 * through each real SDK against a loopback fake that bills as the provider documents — prompt
 * caching from the request's breakpoints and prefix, images by their pixels
 * (libs/testing/src/providers/billing-fakes.ts): no request carries more than VISION_MAX_IMAGES
 * images, the request stops growing once the window is full, and most input is read from the cache.
 */
describe('a 30-screenshot walkthrough through the real SDKs', () => {
  const ctx = new RedisTestContext('screenshot-caching', { VISION_MAX_IMAGES: String(VISION_MAX_IMAGES) });
  afterAll(() => ctx.close());

  it.each(['anthropic', 'gemini'] as const)(
    '%s: at most VISION_MAX_IMAGES images a request, requests bounded, cache reads ≥ 60% of input',
    async (provider) => {
      const run = await runScreenshotMission(ctx, {
        provider,
        shots: SHOTS,
        store: new MemoryObjectStore(),
        taskId: `tsk_shots_${provider}`,
      });
      expect(run.outcomes.at(-1)).toBe('verifying');
      // A navigation and a screenshot per page, then finish_task.
      expect(run.calls).toHaveLength(2 * SHOTS + 1);

      const images = run.calls.map((call) => imagesIn(call.body));
      expect(Math.max(...images)).toBe(VISION_MAX_IMAGES);
      // The screenshot just taken is in the next request, unless that one opens a new slice.
      const opensSlice = (body: WireBody) => (body.messages ?? body.contents).length === 1;
      const after = Array.from({ length: SHOTS }, (_, page) => run.calls[2 * page + 2]);
      const within = after.filter((call) => !opensSlice(call.body));
      expect(within.length).toBeGreaterThan(SHOTS / 2);
      for (const call of within) expect(imagesIn(call.body)).toBeGreaterThan(0);

      // Bounded: the largest of the last 20 requests is no larger than the largest once the window
      // first filled (give or take the opening's growing list of completed steps).
      const ceiling = (bytes: number[]) => Math.max(...bytes);
      expect(ceiling(run.requestBytes.slice(-20))).toBeLessThanOrEqual(
        1.05 * ceiling(run.requestBytes.slice(0, 14)),
      );

      const total = (pick: (call: (typeof run.calls)[number]) => number) =>
        run.calls.reduce((sum, call) => sum + pick(call), 0);
      const input = total((call) => call.usage.prompt);
      expect(input).toBe(total((c) => c.usage.uncached + c.usage.cacheWrite + c.usage.cacheRead));
      expect(total((call) => call.usage.cacheRead) / input).toBeGreaterThanOrEqual(0.6);
    },
  );
});

/**
 * `read_output` of a screenshot step shows the screenshot again (docs/models.md, "Images"): its
 * image comes back from the object store into the next request, within VISION_MAX_IMAGES.
 */
describe('read_output of a screenshot, through the real Anthropic SDK', () => {
  const ctx = new RedisTestContext('screenshot-read-back', { VISION_MAX_IMAGES: String(VISION_MAX_IMAGES) });
  afterAll(() => ctx.close());

  it('shows the image of an earlier step again, counted against VISION_MAX_IMAGES', async () => {
    const run = await runScreenshotMission(ctx, {
      provider: 'anthropic',
      shots: 6,
      store: new MemoryObjectStore(),
      taskId: 'tsk_read_back',
      readBack: { after: 5, page: 0 },
    });
    expect(run.outcomes).toEqual(['verifying']);
    const imageData = (body: WireBody): string[] =>
      (body.messages as WireBody[]).flatMap((m) =>
        (Array.isArray(m.content) ? (m.content as WireBody[]) : [])
          .filter((b) => b.type === 'tool_result' && Array.isArray(b.content))
          .flatMap((b) => (b.content as WireBody[]).filter((c) => c.type === 'image'))
          .map((image) => image.source.data as string),
      );
    // Page 0's screenshot, as the request after it carried it; long gone from the window since.
    const [page0] = imageData(run.calls[2].body);
    // The request that answers the model's read_output call.
    const readCall = run.calls.findIndex((call) => {
      const asked = (call.body.messages as WireBody[]).at(-2)?.content;
      return (
        Array.isArray(asked) && asked.some((b: WireBody) => b.type === 'tool_use' && b.name === 'read_output')
      );
    });
    expect(readCall).toBeGreaterThan(10);
    expect(imageData(run.calls[readCall - 1].body)).not.toContain(page0);
    expect(imageData(run.calls[readCall].body)).toContain(page0);
    expect(imageData(run.calls[readCall].body).length).toBeLessThanOrEqual(VISION_MAX_IMAGES);
  });
});
