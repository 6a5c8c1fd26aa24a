import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoopbackServer, sendJson } from '@vigil/testing';
import { createMessageRouter } from './model-router';

type Handler = (path: string, body: Record<string, any>) => unknown;

/** A loopback server that records every request and answers with `handler`'s JSON (500 without). */
async function loopback(
  handler: Handler,
): Promise<{ url: string; bodies: Record<string, any>[]; server: LoopbackServer }> {
  const bodies: Record<string, any>[] = [];
  const server = new LoopbackServer(({ url, headers, body }, res) => {
    bodies.push({ path: url, headers, ...body });
    const answer = handler(url, body);
    sendJson(
      res,
      answer === undefined ? 500 : 200,
      answer ?? { error: { type: 'api_error', message: 'boom' } },
    );
  });
  return { url: await server.listen(), bodies, server };
}

const settings = {
  anthropicModel: 'claude-opus-4-1',
  geminiModel: 'gemini-2.5-pro',
  anthropicApiKey: undefined as string | undefined,
  anthropicBaseUrl: undefined as string | undefined,
  geminiApiKey: undefined as string | undefined,
  geminiBaseUrl: undefined as string | undefined,
  routerModel: undefined as string | undefined,
};

/** A Messages API reply whose one block is a route_message tool call with this input. */
function routeMessageReply(
  id: number,
  input: Record<string, unknown>,
  usage = { input_tokens: 1, output_tokens: 1 },
) {
  return {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    content: [{ type: 'tool_use', id: `toolu_${id}`, name: 'route_message', input }],
    stop_reason: 'tool_use',
    usage,
  };
}

/** The router on claude-haiku-4-5 with a test key, sending to `url`. */
function claudeRouter(url: string) {
  return createMessageRouter({
    ...settings,
    routerModel: 'claude-haiku-4-5',
    anthropicApiKey: 'sk-ant-test',
    anthropicBaseUrl: url,
  });
}

describe('the router model, through the real SDKs against loopback fakes of their wire formats', () => {
  const servers: Array<{ close(): unknown }> = [];
  afterEach(() => servers.splice(0).forEach((server) => server.close()));
  const signal = () => new AbortController().signal;

  it('asks Claude for a forced route_message tool call and takes its input as the decision', async () => {
    const fake = await loopback((path) =>
      path === '/v1/messages'
        ? routeMessageReply(
            1,
            { route: 'simple', intent: 'answer', alongside: false, reply: 'Vigil runs long jobs.' },
            { input_tokens: 120, output_tokens: 30 },
          )
        : undefined,
    );
    servers.push(fake.server);
    const router = claudeRouter(fake.url);

    const routed = await router.route('What can you do?', signal());

    expect(routed).toMatchObject({
      route: 'simple',
      intent: 'answer',
      reply: 'Vigil runs long jobs.',
      decidedBy: 'model',
    });
    const [request] = fake.bodies;
    expect(request.model).toBe('claude-haiku-4-5');
    expect(request.headers['x-api-key']).toBe('sk-ant-test');
    expect(request.tool_choice).toEqual({ type: 'tool', name: 'route_message' });
    expect(request.tools[0].input_schema.properties.route.enum).toEqual(['simple', 'tools', 'mission']);
  });

  it('asks Gemini for JSON under responseJsonSchema and parses the answer', async () => {
    const fake = await loopback((path) =>
      path?.startsWith('/v1beta/models/gemini-2.5-flash:generateContent')
        ? {
            candidates: [
              {
                content: {
                  role: 'model',
                  parts: [{ text: '{"route":"mission","intent":"mission","alongside":true}' }],
                },
                finishReason: 'STOP',
              },
            ],
            usageMetadata: { promptTokenCount: 90, candidatesTokenCount: 12, totalTokenCount: 102 },
          }
        : undefined,
    );
    servers.push(fake.server);
    const router = createMessageRouter(
      {
        ...settings,
        routerModel: 'gemini-2.5-flash',
        geminiApiKey: 'gm-test',
        geminiBaseUrl: fake.url,
      },
      // Jest's sandbox: the SDK's fetch must come from the test's realm (as in gemini.provider.spec).
      { fetch: (url, init) => fetch(url, init) },
    );

    const routed = await router.route('Research ten CRMs in parallel', signal());

    expect(routed).toMatchObject({ route: 'mission', alongside: true, decidedBy: 'model' });
    const [request] = fake.bodies;
    expect(request.generationConfig.responseMimeType).toBe('application/json');
    expect(request.generationConfig.responseJsonSchema.required).toEqual(['route', 'intent', 'alongside']);
    expect(request.headers['x-goog-api-key']).toBe('gm-test');
  });

  it('falls back to the documented rules when the model fails or answers off the schema', async () => {
    const failing = await loopback(() => undefined);
    const offSchema = await loopback(() => routeMessageReply(2, { route: 'everything', intent: 'x' }));
    servers.push(failing.server, offSchema.server);
    for (const url of [failing.url, offSchema.url]) {
      const router = claudeRouter(url);
      await expect(router.route('stop the mission', signal())).resolves.toMatchObject({
        route: 'tools',
        intent: 'stop',
        decidedBy: 'rules',
      });
    }
  });

  it('falls back to the rules when the router model does not answer within the deadline', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    servers.push(silent);
    const router = claudeRouter(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    await expect(router.route('pause it', AbortSignal.timeout(300))).resolves.toMatchObject({
      route: 'tools',
      intent: 'pause',
      decidedBy: 'rules',
    });
    silent.closeAllConnections();
  });

  it('never lets a model invent a task id the message does not name', async () => {
    const fake = await loopback(() =>
      routeMessageReply(3, { route: 'tools', intent: 'status', alongside: false, taskId: 'tsk_invented123' }),
    );
    servers.push(fake.server);
    const router = claudeRouter(fake.url);
    const routed = await router.route('how is it going?', signal());
    expect(routed.taskId).toBeUndefined();
    expect(routed.intent).toBe('status');
  });

  it('tells the model that "my task(s)" questions are tools, and keeps them there when it says simple', async () => {
    const fake = await loopback(() =>
      routeMessageReply(4, {
        route: 'simple',
        intent: 'answer',
        alongside: false,
        reply: 'It is probably done.',
      }),
    );
    servers.push(fake.server);
    const router = claudeRouter(fake.url);
    const routed = await router.route('¿ya terminó mi tarea?', signal());
    expect(routed).toMatchObject({ route: 'tools', intent: 'status', about: 'my_task', decidedBy: 'model' });
    expect(routed.reply).toBeUndefined();
    expect(fake.bodies[0].system).toContain('is my task done yet?');
    expect(fake.bodies[0].system).toContain('wie laufen meine Aufgaben?');
  });

  it('uses the rules when no ROUTER_MODEL is set, or its provider has no key', async () => {
    for (const config of [settings, { ...settings, routerModel: 'claude-haiku-4-5' }]) {
      await expect(
        createMessageRouter(config).route('Research our competitors', signal()),
      ).resolves.toMatchObject({
        route: 'mission',
        decidedBy: 'rules',
      });
    }
  });
});
