import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from '@vigil/testing';
import { BenchContext } from './lib/context';
import { startApp } from './lib/processes';
import type { Bench } from './lib/result';
import { percentile, round } from './lib/stats';

/**
 * Issue 13: how long a conversation message takes in Vigil's own code on the `simple` and `tools`
 * routes, with ROUTER_MODEL answered by a loopback fake of the Messages API (the API's
 * production build as a process, real Redis). "Ours" is the request's time minus the time the fake
 * spent answering.
 */
export const runConversationsBench: Bench = async ({ quick, distDir, log }) => {
  const ctx = new BenchContext('conversations');
  const fake = await routerFake();
  const api = await startApp(
    await distDir(),
    'api',
    ctx.env({
      API_KEYS: 'acme:bench-key-0001',
      ROUTER_MODEL: 'claude-haiku-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      ANTHROPIC_BASE_URL: fake.url,
      RATE_LIMIT_PER_MINUTE: '1000000',
    }),
  );
  const port = /ready on port (\d+)/.exec(api.text())![1];
  const client = new HttpClient(`http://127.0.0.1:${port}`, 'bench-key-0001');
  try {
    const created = await client.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
    const taskId = created.body.id as string;
    const n = quick ? 100 : 400;
    const measure = async (route: 'simple' | 'tools', text: string) => {
      const total: number[] = [];
      const ours: number[] = [];
      for (let i = 0; i < n + 10; i++) {
        const before = fake.busyMs;
        const t0 = performance.now();
        const reply = await client.post('/v1/conversations/bench/messages', { text });
        const ms = performance.now() - t0;
        if (reply.body.route !== route)
          throw new Error(`expected route ${route}, got ${JSON.stringify(reply.body)}`);
        // The first ten warm the JIT and the connections.
        if (i < 10) continue;
        total.push(ms);
        ours.push(ms - (fake.busyMs - before));
      }
      return { total, ours };
    };
    const simple = await measure('simple', 'What can you do?');
    const tools = await measure('tools', `How is ${taskId} doing?`);
    log(`conversations: ${n} messages per route`);
    const figure = (samples: { total: number[]; ours: number[] }, route: string) => ({
      value: round(percentile(samples.ours, 50), 2),
      unit: 'ms (p50, in our code)',
      note: `POST /v1/conversations/:id/messages on the ${route} route, ${n} messages one after another, the built API as a process on the real Redis, ROUTER_MODEL answered by a loopback fake of the Messages API (its own time subtracted)`,
      details: {
        oursP99Ms: round(percentile(samples.ours, 99), 2),
        totalP50Ms: round(percentile(samples.total, 50), 2),
        totalP99Ms: round(percentile(samples.total, 99), 2),
      },
    });
    return {
      'conversations.simple_route_ms': figure(simple, 'simple (one router call, the model answers)'),
      'conversations.tools_route_ms': figure(
        tools,
        'tools (one router call, then the task read from its record)',
      ),
    };
  } finally {
    await api.stop();
    await new Promise<void>((resolve) => fake.server.close(() => resolve()));
    await ctx.close();
  }
};

/** The Messages API answering a forced route_message call: status questions are `tools`, the rest `simple`. */
async function routerFake(): Promise<{ url: string; server: Server; busyMs: number }> {
  const state = { url: '', server: undefined as unknown as Server, busyMs: 0 };
  state.server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const t0 = performance.now();
      const text = String(JSON.parse(raw).messages?.[0]?.content ?? '');
      const input = /how is/i.test(text)
        ? { route: 'tools', intent: 'status', alongside: false }
        : { route: 'simple', intent: 'answer', alongside: false, reply: 'I run long jobs.' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'msg_bench',
          type: 'message',
          role: 'assistant',
          model: 'claude-haiku-4-5',
          content: [{ type: 'tool_use', id: 'toolu_bench', name: 'route_message', input }],
          stop_reason: 'tool_use',
          usage: { input_tokens: 100, output_tokens: 20 },
        }),
      );
      state.busyMs += performance.now() - t0;
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}
