import {
  AnthropicWireFake,
  anthropicMessage,
  RedisTestContext,
  sendAnthropic,
  type HttpClient,
} from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

type Body = Record<string, any>;

/**
 * The `tools` route with a router model, through the real Anthropic SDK against a loopback fake of
 * the Messages API: the router call classifies, then at most five loop calls read the tasks with
 * read-only tools and answer (docs/conversations.md, "Conversations").
 */
describe('the tools loop of a conversation', () => {
  const bodies: Body[] = [];
  let loopReply: (body: Body, call: number) => Body[];
  const model = new AnthropicWireFake('sk-ant-test');
  let api: InProcessApi;
  let acme: HttpClient;
  let ctx: RedisTestContext;

  const message = (content: Body[], stop = 'tool_use') =>
    anthropicMessage(content, stop, { input_tokens: 10, output_tokens: 5 }, { model: 'claude-haiku-4-5' });

  beforeAll(async () => {
    let loopCalls = 0;
    model.answer = (body, res) => {
      bodies.push(body);
      if (body.tool_choice?.name === 'route_message') {
        const input = { route: 'tools', intent: 'status', alongside: false };
        return sendAnthropic(
          res,
          200,
          message([{ type: 'tool_use', id: 'toolu_r', name: 'route_message', input }]),
        );
      }
      const content = loopReply(body, ++loopCalls);
      sendAnthropic(
        res,
        200,
        message(content, content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
      );
    };
    await model.listen();
    ctx = new RedisTestContext('tools-loop', {
      API_KEYS: 'acme:acme-key-123',
      ROUTER_MODEL: 'claude-haiku-4-5',
      ANTHROPIC_API_KEY: model.apiKey,
      ANTHROPIC_BASE_URL: model.baseUrl,
    });
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
  });
  afterAll(async () => {
    await ctx.close();
    await model.close();
  });

  const loopCalls = () => bodies.filter((body) => body.tool_choice?.name !== 'route_message');

  it('reads the task with a tool and answers from what it read', async () => {
    const task = (await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 4 }, title: 'Probe task' }))
      .body;
    loopReply = (body, call) => {
      if (call === 1)
        return [{ type: 'tool_use', id: 'toolu_1', name: 'task_status', input: { taskId: task.id } }];
      // The answer quotes the tool result it was given, as a model would.
      const result = body.messages.at(-1).content.find((block: Body) => block.type === 'tool_result');
      return [{ type: 'text', text: `From the record: ${result.content}` }];
    };
    bodies.length = 0;
    const reply = await acme.post('/v1/conversations/c-loop/messages', { text: `where is ${task.id} at?` });
    expect(reply.status).toBe(201);
    expect(reply.body.route).toBe('tools');
    expect(reply.body.reply).toContain(`"Probe task" (${task.id}) is queued: 0 of 4 steps done`);
    expect(loopCalls()).toHaveLength(2);
    expect(loopCalls()[0].tools.map((tool: Body) => tool.name)).toEqual([
      'list_tasks',
      'task_status',
      'task_findings',
      'task_report',
    ]);
  });

  it('stops after five model calls, the last without tools, and never reads another tenant', async () => {
    loopReply = (body) =>
      body.tools?.length
        ? [
            {
              type: 'tool_use',
              id: `toolu_${bodies.length}`,
              name: 'task_status',
              input: { taskId: 'tsk_notmine12345' },
            },
          ]
        : [{ type: 'text', text: 'I could not find that task.' }];
    bodies.length = 0;
    const reply = await acme.post('/v1/conversations/c-loop-2/messages', {
      text: 'how is tsk_notmine12345 doing?',
    });
    // The named task is not the tenant's: a 404 before any loop runs.
    expect(reply.status).toBe(404);

    bodies.length = 0;
    const bounded = await acme.post('/v1/conversations/c-loop-3/messages', { text: 'how is it going?' });
    expect(bounded.status).toBe(201);
    expect(bounded.body.reply).toBe('I could not find that task.');
    const calls = loopCalls();
    expect(calls).toHaveLength(5);
    expect(calls.at(-1)!.tools).toBeUndefined();
    // Each read of a task outside the tenant came back to the model as an error, never its record.
    const results = calls.at(-1)!.messages.flatMap((m: Body) => (Array.isArray(m.content) ? m.content : []));
    const errors = results.filter((block: Body) => block.type === 'tool_result');
    expect(errors).toHaveLength(4);
    expect(errors.every((block: Body) => block.is_error === true)).toBe(true);
  });
});
