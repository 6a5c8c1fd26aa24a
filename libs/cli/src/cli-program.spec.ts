import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-program';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback API answering `METHOD /path` from a table (the CLI's own HTTP is real). */
async function api(routes: Record<string, Route>): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    const route = `${request.method} ${request.url}`;
    seen.push(route);
    request.resume();
    request.on('end', () => {
      const handler = routes[route];
      if (handler) handler(request, response);
      else
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ statusCode: 404, error: 'Not Found', message: `task not found` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

const json =
  (body: unknown, status = 200): Route =>
  (_request, response) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const sse =
  (frames: Record<string, unknown>[]): Route =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const frame of frames)
      response.write(
        `id: ${String(frame.id)}\nevent: ${String(frame.type)}\ndata: ${JSON.stringify(frame)}\n\n`,
      );
    response.end();
  };

const running = {
  id: 'tsk_1',
  title: 'three steps',
  kind: 'noop',
  status: 'running',
  completedUnits: 0,
  totalUnits: 3,
};

async function run(argv: string[], env: Record<string, string | undefined>, tty = false) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    tty,
    color: false,
    env,
    readStdin: () => '',
  });
  return { code, stdout, stderr };
}

describe('the vigil command line', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });
  async function start(routes: Record<string, Route>) {
    const started = await api(routes);
    servers.push(started.server);
    return { env: { VIGIL_URL: started.url, VIGIL_API_KEY: 'key-1' }, seen: started.seen };
  }

  it('prints a read as the JSON the API answered with --json, and as lines for a person without', async () => {
    const task = { ...running, status: 'completed', completedUnits: 3 };
    const { env } = await start({ 'GET /v1/tasks/tsk_1': json(task) });
    const asJson = await run(['tasks', 'get', 'tsk_1', '--json'], env);
    expect([asJson.code, JSON.parse(asJson.stdout)]).toEqual([0, task]);
    const asLines = await run(['tasks', 'get', 'tsk_1'], env);
    expect(asLines.stdout).toContain('status    completed\n');
    expect(asLines.stdout).toContain('progress  3/3 (100%)\n');
    expect(asLines.stderr).toBe('');
  });

  it('follows a task to its end without a terminal in plain lines, and exits 1 when it failed', async () => {
    const failed = {
      ...running,
      status: 'failed',
      completedUnits: 2,
      failure: { reason: 'limit', detail: 'TASK_MAX_SLICES (1) reached' },
    };
    let reads = 0;
    const { env } = await start({
      'GET /v1/tasks/tsk_1': (request, response) => json(reads++ === 0 ? running : failed)(request, response),
      'GET /v1/tasks/tsk_1/events': sse([
        { id: '1-0', type: 'task.started', status: 'running', attempt: 1, data: {} },
        {
          id: '2-0',
          type: 'task.progress',
          status: 'running',
          attempt: 1,
          data: { completedUnits: 2, totalUnits: 3 },
        },
        {
          id: '3-0',
          type: 'model.delta',
          status: 'running',
          attempt: 1,
          data: { callId: 'c1', text: 'Thinking\nabout it' },
        },
        {
          id: '4-0',
          type: 'task.failed',
          status: 'failed',
          attempt: 1,
          data: {},
          message: { kind: 'failed', text: 'Your task failed.' },
        },
      ]),
    });
    const result = await run(['tasks', 'watch', 'tsk_1'], env);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      'task tsk_1: "three steps" (noop), running',
      'progress 0/3 (0%) running',
      'started (attempt 1)',
      'progress 2/3 (66%) running',
      'model: Thinking',
      'model: about it',
      'message (failed): Your task failed.',
      'failed after 1 attempt, 0 slices, $0.00',
      'failure: limit: TASK_MAX_SLICES (1) reached',
      '',
    ]);
    expect(result.stdout).not.toMatch(/[\r\x1b]/);
  });

  it('exits 3 when the watched task waits for a person, saying how to answer', async () => {
    const waiting = { ...running, status: 'waiting_on_human', humanQuestion: 'Which region first?' };
    let reads = 0;
    const { env } = await start({
      'GET /v1/tasks/tsk_1': (request, response) =>
        json(reads++ === 0 ? running : waiting)(request, response),
      'GET /v1/tasks/tsk_1/events': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `id: 1-0\ndata: ${JSON.stringify({ id: '1-0', type: 'task.waiting_on_human', status: 'waiting_on_human', data: { question: 'Which region first?' } })}\n\n`,
        );
        // The stream stays open, as the API's does for a waiting task.
      },
    });
    const result = await run(['tasks', 'watch', 'tsk_1'], env);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('answer with: vigil tasks answer tsk_1 "<your answer>"');
  });

  it('names the id on a 404, the variable without a key, and VIGIL_URL when nothing answers', async () => {
    const { env } = await start({
      'GET /v1/tasks': json(
        { statusCode: 401, error: 'Unauthorized', message: 'missing or unknown API key' },
        401,
      ),
    });
    const missing = await run(['tasks', 'get', 'tsk_nope'], env);
    expect([missing.code, missing.stderr]).toEqual([
      4,
      "vigil: no task tsk_nope for this API key's tenant (404): check the id with vigil tasks ls\n",
    ]);
    const noKey = await run(['tasks', 'ls'], { VIGIL_URL: env.VIGIL_URL });
    expect(noKey.code).toBe(4);
    expect(noKey.stderr).toContain(
      'warning: VIGIL_API_KEY is not set: using the development key local-dev-key',
    );
    expect(noKey.stderr).toContain('the API refused the development key (401): set VIGIL_API_KEY');
    // A port where nothing listens any more.
    const gone = await api({});
    await new Promise((resolve) => gone.server.close(resolve));
    const down = await run(['tasks', 'ls'], { ...env, VIGIL_URL: gone.url });
    expect(down.code).toBe(4);
    expect(down.stderr).toContain(
      `cannot reach the Vigil API at ${gone.url} (ECONNREFUSED): is the API running there?`,
    );
    expect(down.stderr).toContain('set VIGIL_URL');
  });

  it('refuses a body file that is not JSON, and bad usage, with exit 4', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-'));
    writeFileSync(join(dir, 'body.json'), '{"kind": noop}');
    const notJson = await run(['tasks', 'create', '-f', join(dir, 'body.json')], { VIGIL_API_KEY: 'k' });
    expect(notJson.code).toBe(4);
    expect(notJson.stderr).toContain(`${join(dir, 'body.json')} is not JSON`);
    const usage = await run(['tasks', 'ls', '--status', 'sleeping'], { VIGIL_API_KEY: 'k' });
    expect(usage.code).toBe(4);
    expect(usage.stderr).toContain("option '--status <status>' argument 'sleeping' is invalid");
    expect((await run(['--help'], {})).code).toBe(0);
  });
});
