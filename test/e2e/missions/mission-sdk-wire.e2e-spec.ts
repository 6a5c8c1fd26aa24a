import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TaskRecord } from '@vigil/tasks';
import { AnthropicBillingFake, GeminiBillingFake, RedisTestContext, VigilStack } from '@vigil/testing';
import { startTicketTracker, type TicketTracker } from '../../../examples/ticket-tracker/tracker';
import {
  ECHO_MESSAGE,
  everythingModel,
  FINDING_TITLE,
  FORBIDDEN_TOOL,
  seenByAnthropic,
  seenByGemini,
  type SeenRequest,
} from '../../support/everything-model';

const ROOT = resolve(__dirname, '../../..');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ANTHROPIC_KEY = 'sk-ant-wire-test';
const GEMINI_KEY = 'gemini-wire-test';

type Body = Record<string, any>;
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/**
 * One mission through both real model SDKs (docs/missions.md, "The mission kind"): a Worker
 * process runs it on `@anthropic-ai/sdk` and on `@google/genai` against loopback fakes of their
 * wire formats in this process, with its tools from the real `@modelcontextprotocol/server-everything`
 * over stdio (spawned by the Worker and the Watcher). The fakes play a model that reads what it
 * was offered. Each request must carry every tool of the server under `everything__<tool>`, with
 * its input schema exactly as the server's tools/list gave it; the model's call to a catalog tool
 * the tenant may not use is refused at call time; the echo's answer comes back and the task
 * completes verified by a `tool_result` check on the same server.
 */
describe('a mission through the real Anthropic and Gemini SDKs', () => {
  const ctx = new RedisTestContext('missions-wire');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-wire-')));
  const anthropic = everythingModel(seenByAnthropic);
  const gemini = everythingModel(seenByGemini);
  const anthropicFake = new AnthropicBillingFake({ apiKey: ANTHROPIC_KEY, next: anthropic.next });
  const geminiFake = new GeminiBillingFake({ apiKey: GEMINI_KEY, next: gemini.next });
  let tracker: TicketTracker;
  let listed: ListedTool[];
  let stack: VigilStack;

  beforeAll(async () => {
    // The server's own tools/list, straight from the SDK Client: what the models must be offered.
    const client = new Client({ name: 'wire-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' }),
    );
    listed = (await client.listTools()).tools as ListedTool[];
    await client.close();
    // Awkward schemas among them: enums, defaults, bounds, draft-07 `$schema`.
    expect(listed.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'get-annotated-message', 'get-sum']),
    );

    tracker = await startTicketTracker();
    const catalogPath = join(dir, 'vigil.tools.json');
    writeFileSync(
      catalogPath,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        httpTools: {
          [FORBIDDEN_TOOL]: {
            description: 'Open a ticket in the tracker.',
            method: 'POST',
            url: `${tracker.url}/tickets`,
            input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
            write: true,
          },
        },
        tenants: { acme: { allow: ['everything'] }, ops: { allow: [FORBIDDEN_TOOL] } },
      }),
    );
    const [anthropicUrl, geminiUrl] = await Promise.all([anthropicFake.listen(), geminiFake.listen()]);
    stack = new VigilStack(ctx, {
      VIGIL_TOOLS: catalogPath,
      TOOLS_ALLOW_PRIVATE: 'true',
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: anthropicUrl,
      GEMINI_API_KEY: GEMINI_KEY,
      GEMINI_BASE_URL: geminiUrl,
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '5000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
    });
    await Promise.all([stack.start('api'), stack.start('watcher'), stack.start('worker')]);
  }, 60_000);
  afterAll(async () => {
    await stack?.stopAll();
    await Promise.all([anthropicFake.close(), geminiFake.close(), tracker?.close()]);
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runMission = async (model: 'opus' | 'gemini'): Promise<TaskRecord> => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      title: `Echo through ${model}`,
      input: { goal: 'Have the echo tool repeat a message and record what it said.', tools: ['everything'] },
      exitCriteria: [
        {
          check: 'tool_result',
          args: { tool: 'everything.echo', arguments: { message: ECHO_MESSAGE }, pointer: '/content/0/text' },
          expected: `Echo: ${ECHO_MESSAGE}`,
        },
        { check: 'findings_count', expected: 1 },
      ],
      agent: { model, policy: [model] },
    });
    expect(created.status).toBe(201);
    return stack.waitForTask(
      created.body.id as string,
      (t) => ['completed', 'failed', 'waiting_on_human'].includes(t.status),
      45_000,
      `the end on ${model}`,
    );
  };

  /** The model ran the mission as planned, and each step came back to it as it should. */
  const expectTheModelsView = (seen: SeenRequest[]) => {
    expect(seen.every((request) => request.offered.includes('everything__echo'))).toBe(true);
    expect(seen.every((request) => !request.offered.includes(FORBIDDEN_TOOL))).toBe(true);
    const results = seen.at(-1)!.results;
    expect(results.map((result) => [result.name, result.isError])).toEqual([
      [FORBIDDEN_TOOL, true],
      ['everything__echo', false],
      ['record_finding', false],
    ]);
    expect(results[0].text).toContain(FORBIDDEN_TOOL);
    expect(results[1].text).toContain(`Echo: ${ECHO_MESSAGE}`);
  };

  const expectCompleted = async (task: TaskRecord, provider: string) => {
    expect({ status: task.status, provider: task.provider, retries: task.retryCount }).toEqual({
      status: 'completed',
      provider,
      retries: 0,
    });
    expect(task.verification?.checks.map((check) => [check.check, check.passed, check.actual])).toEqual([
      ['tool_result', true, `Echo: ${ECHO_MESSAGE}`],
      ['findings_count', true, 1],
    ]);
    const findings = (await stack.api!.get(`/v1/tasks/${task.id}/findings`)).body.data as Body[];
    expect(findings).toEqual([
      expect.objectContaining({
        title: FINDING_TITLE,
        body: expect.stringContaining(`Echo: ${ECHO_MESSAGE}`),
      }),
    ]);
    // The forbidden tool was refused before anything went out: the tracker saw nothing.
    expect(tracker.stats()).toEqual({ tickets: 0, createCalls: 0 });
  };

  it('Claude: every server tool offered as everything__<tool> with its input_schema unchanged; completes verified', async () => {
    const done = await runMission('opus');
    await expectCompleted(done, 'anthropic');
    expect(anthropicFake.calls).toHaveLength(4);
    for (const { body } of anthropicFake.calls) {
      const offered = new Map((body.tools as Body[]).map((tool) => [tool.name as string, tool]));
      for (const tool of listed) {
        const sent = offered.get(`everything__${tool.name}`);
        expect({ tool: tool.name, schema: sent?.input_schema }).toEqual({
          tool: tool.name,
          schema: tool.inputSchema,
        });
      }
    }
    const names = (anthropicFake.calls[0].body.tools as Body[]).map((tool) => tool.name as string);
    expect(names.filter((name) => name.startsWith('everything__')).sort()).toEqual(
      listed.map((tool) => `everything__${tool.name}`).sort(),
    );
    expectTheModelsView(anthropic.seen);
  }, 60_000);

  it('Gemini: every server tool offered as everything__<tool> with parametersJsonSchema unchanged; completes verified', async () => {
    const done = await runMission('gemini');
    await expectCompleted(done, 'google');
    expect(geminiFake.calls).toHaveLength(4);
    for (const { body } of geminiFake.calls) {
      const declarations = (body.tools as Body[]).flatMap((tool) => tool.functionDeclarations as Body[]);
      const offered = new Map(declarations.map((declaration) => [declaration.name as string, declaration]));
      for (const tool of listed) {
        const sent = offered.get(`everything__${tool.name}`);
        expect({ tool: tool.name, schema: sent?.parametersJsonSchema, parameters: sent?.parameters }).toEqual(
          {
            tool: tool.name,
            schema: tool.inputSchema,
            parameters: undefined,
          },
        );
      }
      expect(
        declarations
          .map((declaration) => declaration.name as string)
          .filter((name) => name.startsWith('everything__'))
          .sort(),
      ).toEqual(listed.map((tool) => `everything__${tool.name}`).sort());
    }
    expectTheModelsView(gemini.seen);
  }, 60_000);
});
