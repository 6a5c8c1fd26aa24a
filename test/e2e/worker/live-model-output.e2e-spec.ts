import type { ServerResponse } from 'node:http';
import { parseTaskEvent } from '@vigil/events';
import {
  AnthropicWireFake,
  anthropicMessage,
  anthropicStreamEvents,
  GeminiWireFake,
  geminiReply,
  geminiStreamChunks,
  openAnthropicStream,
  openGeminiStream,
  RedisTestContext,
  VigilStack,
  type WireBody,
  writeGeminiChunks,
  writeSse,
} from '@vigil/testing';
import { SseClient, type SseFrame } from '../../support/sse-client';

const ANTHROPIC_KEY = 'sk-ant-live-output';
const GEMINI_KEY = 'gemini-live-output';
const SENTENCE = 'Let me run step zero first, then finish.';

/** How a test wants the fake model's next reply written: whole, held after its first text, or never finished. */
type Pace = 'whole' | { holdUntil: Promise<void> } | 'hang';

/** One provider's fake, streaming a model that plays a one-step noop task: the step, then finish_task. */
interface StreamingModel {
  env(): Record<string, string>;
  /** Sets how each reply is written; `answered` counts the calls; `closed` resolves when a reply's connection closed. */
  play(pace: (call: number) => Pace): { answered: () => number; closed: Promise<void>[] };
}

/** Writes `events` as paced: whole, the first `head` then the rest once released, or the head only. */
function paced<T>(
  res: ServerResponse,
  events: T[],
  head: number,
  pace: Pace,
  write: (events: T[]) => void,
): void {
  if (pace === 'whole') {
    write(events);
    res.end();
    return;
  }
  write(events.slice(0, head));
  if (pace === 'hang') return;
  void pace.holdUntil.then(() => {
    write(events.slice(head));
    res.end();
  });
}

const closedOf = (res: ServerResponse) => new Promise<void>((resolve) => res.on('close', () => resolve()));

function anthropicModel(fake: AnthropicWireFake): StreamingModel {
  return {
    env: () => ({ ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: fake.baseUrl }),
    play(pace) {
      let calls = 0;
      const closed: Promise<void>[] = [];
      fake.answer = (body: WireBody, res) => {
        const call = calls++;
        closed.push(closedOf(res));
        const stepDone = (body.messages as WireBody[]).some(
          (m) =>
            Array.isArray(m.content) &&
            m.content.some((b: WireBody) => b.type === 'tool_result' && !b.is_error),
        );
        const use = stepDone
          ? { name: 'finish_task', input: { summary: 'step 0 is done' } }
          : { name: 'noop_step', input: { index: 0 } };
        const message = anthropicMessage(
          [
            { type: 'text', text: SENTENCE },
            { type: 'tool_use', id: `toolu_${call}`, ...use },
          ],
          'tool_use',
          {
            input_tokens: 300,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
            output_tokens: 20,
          },
        );
        const events = anthropicStreamEvents(message, 6);
        openAnthropicStream(res);
        // Through the second text piece: message_start, ping, content_block_start, two deltas.
        paced(res, events, 5, pace(call), (some) => writeSse(res, some));
      };
      return { answered: () => calls, closed };
    },
  };
}

function geminiModel(fake: GeminiWireFake): StreamingModel {
  return {
    env: () => ({ GEMINI_API_KEY: GEMINI_KEY, GEMINI_BASE_URL: fake.baseUrl }),
    play(pace) {
      let calls = 0;
      const closed: Promise<void>[] = [];
      fake.answer = (body: WireBody, res) => {
        const call = calls++;
        closed.push(closedOf(res));
        const stepDone = (body.contents as WireBody[]).some((c) =>
          (c.parts as WireBody[]).some((p) => p.functionResponse && !p.functionResponse.response?.error),
        );
        const functionCall = stepDone
          ? { name: 'finish_task', args: { summary: 'step 0 is done' } }
          : { name: 'noop_step', args: { index: 0 } };
        const chunks = geminiStreamChunks(geminiReply([{ text: SENTENCE }, { functionCall }]), 6);
        openGeminiStream(res);
        paced(res, chunks, 2, pace(call), (some) => writeGeminiChunks(res, some));
      };
      return { answered: () => calls, closed };
    },
  };
}

/**
 * Live model output through the real SDKs (docs/api.md, "Live model output"): a Worker process
 * runs a task on `@anthropic-ai/sdk` and on `@google/genai` against loopback fakes that stream as
 * the providers document; a client follows `GET /v1/tasks/:id/events`. The fake holds the rest
 * of a reply until the client has seen its first text, so `model.delta` provably arrives before
 * the call ends; a stop while a reply is still streaming ends the stream with
 * `model.call_abandoned`; a client that reconnects with Last-Event-ID misses no durable event.
 */
describe('live model output from a Worker, through both SDKs', () => {
  const ctx = new RedisTestContext('live-output');
  const anthropic = new AnthropicWireFake(ANTHROPIC_KEY);
  const gemini = new GeminiWireFake(GEMINI_KEY);
  const models: Record<'opus' | 'gemini', StreamingModel> = {
    opus: anthropicModel(anthropic),
    gemini: geminiModel(gemini),
  };
  let stack: VigilStack;

  beforeAll(async () => {
    await Promise.all([anthropic.listen(), gemini.listen()]);
    stack = new VigilStack(ctx, {
      ...models.opus.env(),
      ...models.gemini.env(),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '5000',
      WATCHER_INTERVAL_MS: '300',
      SSE_HEARTBEAT_MS: '500',
    });
    await stack.startAll();
  }, 60_000);
  afterAll(async () => {
    await stack?.stopAll();
    await Promise.all([anthropic.close(), gemini.close()]);
    await ctx.close();
  });

  const create = async (model: 'opus' | 'gemini'): Promise<string> => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 1 },
      agent: { model, policy: [model] },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const follow = (id: string, lastEventId?: string, leaveAfter?: (frame: SseFrame) => boolean) =>
    SseClient.open(
      `${stack.api!.baseUrl}/v1/tasks/${id}/events`,
      { authorization: 'Bearer test-key-0001', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      { leaveAfter },
    );
  const durableIds = async (id: string) =>
    (await ctx.redis.xrange(ctx.keys.events(ctx.keys.shardOf(id)), '-', '+'))
      .map(([entry, fields]) => parseTaskEvent(ctx.keys.shardOf(id), entry, fields))
      .filter((event) => event.taskId === id)
      .map((event) => event.id);
  const isLive = (frame: SseFrame) => frame.event?.startsWith('model.') ?? false;

  describe.each(['opus', 'gemini'] as const)('%s', (model) => {
    it('model.delta reaches the stream before the call ends; a reconnect with Last-Event-ID misses no durable event', async () => {
      let release!: () => void;
      const seen = new Promise<void>((resolve) => (release = resolve));
      const fake = models[model].play((call) => (call === 0 ? { holdUntil: seen } : 'whole'));
      const id = await create(model);
      // The first reply is held after its first text until this client has seen a delta of it: the
      // client leaves at that delta, mid-call, on its id (which carries the last durable event sent,
      // so a Worker's heartbeat events written meanwhile are the second client's to get).
      const first = await follow(id, undefined, isLive);
      await first.waitFor((c) => c.ended, 30_000);
      const firstDelta = first.events().find(isLive)!;
      expect(firstDelta).toBe(first.events().at(-1));
      expect(fake.answered()).toBe(1);
      expect(first.lastId()).toContain('~');
      release();
      const second = await follow(id, first.lastId());
      await second.finished();

      expect(firstDelta.data).toMatchObject({ type: 'model.delta', taskId: id, attempt: 1 });
      expect(SENTENCE.startsWith(firstDelta.data.data.text)).toBe(true);
      const frames = [...first.events(), ...second.events()];
      // Every durable event once, with its stream id, in order; the live output is on none of them.
      expect(frames.filter((f) => !isLive(f)).map((f) => f.id)).toEqual(await durableIds(id));
      expect(
        second
          .events()
          .filter((f) => !isLive(f))
          .at(-1)!.event,
      ).toBe('task.completed');
      // Each call's text, joined by offset, is the model's sentence; each ends with a final delta.
      const byCall = new Map<string, string>();
      for (const frame of frames.filter((f) => f.event === 'model.delta')) {
        const { callId, text, offset } = frame.data.data as { callId: string; text: string; offset: number };
        byCall.set(callId, (byCall.get(callId) ?? '').slice(0, offset) + text);
      }
      expect([...byCall.values()]).toEqual([SENTENCE, SENTENCE]);
      expect(frames.filter((f) => f.data?.data?.final).length).toBe(2);
      const messages = (await stack.api!.get(`/v1/tasks/${id}/messages`)).body.data as { text: string }[];
      expect(messages.some((m) => m.text.includes(SENTENCE))).toBe(false);
    }, 60_000);

    it('a stop while the model is still writing ends the stream with model.call_abandoned', async () => {
      const fake = models[model].play(() => 'hang');
      const id = await create(model);
      const sse = await follow(id);
      await sse.waitFor((c) => c.events().some(isLive), 30_000);
      expect((await stack.api!.post(`/v1/tasks/${id}/stop`, {})).status).toBe(200);
      await sse.finished();
      const events = sse.events().map((f) => f.event);
      expect(events.slice(-2)).toEqual(['task.cancelled', 'model.call_abandoned']);
      const abandoned = sse.events().at(-1)!;
      expect(abandoned.data.data).toEqual({
        attempt: 1,
        callId: sse.events().find(isLive)!.data.data.callId,
        reason: 'stopped',
      });
      // The Worker aborted the HTTP call to the provider.
      await fake.closed[0];
      expect(fake.answered()).toBe(1);
    }, 60_000);
  });
});
