import { LoopbackServer, sendJson } from '@vigil/testing';
import { createMessageRouter } from './model-router';
import { TenantRouterSpend } from './router-spend';

/** A Messages API fake that answers every request with one forced route_message call. */
async function claudeFake(): Promise<{ url: string; requests: number; server: LoopbackServer }> {
  const state = { requests: 0 };
  const server = new LoopbackServer((_request, res) => {
    state.requests++;
    sendJson(res, 200, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'route_message',
          input: { route: 'tools', intent: 'status', alongside: false },
        },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
  });
  const url = await server.listen();
  return {
    url,
    server,
    get requests() {
      return state.requests;
    },
  };
}

/** The shared-limits gate's two calls, recorded; `refuse` makes every reservation fail. */
function gate(refuse?: Error) {
  const calls: Array<{ call: 'reserve' | 'settle'; args: unknown[] }> = [];
  return {
    calls,
    reserve: async (...args: unknown[]) => {
      calls.push({ call: 'reserve', args });
      if (refuse) throw refuse;
      return { tenantId: String(args[1]), day: '2026-12-02' };
    },
    settle: async (...args: unknown[]) => {
      calls.push({ call: 'settle', args });
    },
  };
}

describe('router model calls are paid by the tenant', () => {
  const servers: LoopbackServer[] = [];
  afterEach(() => servers.splice(0).forEach((server) => server.close()));
  const routerFor = (url: string) =>
    createMessageRouter({
      anthropicModel: 'claude-opus-4-1',
      geminiModel: 'gemini-2.5-pro',
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: url,
      geminiApiKey: undefined,
      geminiBaseUrl: undefined,
      routerModel: 'claude-haiku-4-5',
    });

  it('reserves the worst case for the tenant before the call and settles it to the usage', async () => {
    const fake = await claudeFake();
    servers.push(fake.server);
    const books = gate();
    const routed = await routerFor(fake.url).route(
      'how is my task?',
      new AbortController().signal,
      new TenantRouterSpend(books, 'acme'),
    );
    expect(routed.decidedBy).toBe('model');
    expect(books.calls.map((c) => c.call)).toEqual(['reserve', 'settle']);
    const [reservedUsd, tenantId] = books.calls[0].args as [number, string];
    expect(tenantId).toBe('acme');
    const [hold, settledFrom, actualUsd] = books.calls[1].args as [unknown, number, number];
    expect(hold).toEqual({ tenantId: 'acme', day: '2026-12-02' });
    expect(settledFrom).toBe(reservedUsd);
    // Haiku 4.5: 1000 input and 100 output tokens, below the reserved worst case.
    expect(actualUsd).toBeGreaterThan(0);
    expect(actualUsd).toBeLessThan(reservedUsd);
  });

  it('makes no model call when the tenant cannot pay, and the rules route the message', async () => {
    const fake = await claudeFake();
    servers.push(fake.server);
    const routed = await routerFor(fake.url).route(
      'how is my task?',
      new AbortController().signal,
      new TenantRouterSpend(gate(new Error('daily budget reached')), 'acme'),
    );
    expect(fake.requests).toBe(0);
    expect(routed.decidedBy).toBe('rules');
    expect(routed.rule).toContain('daily budget reached');
  });
});
