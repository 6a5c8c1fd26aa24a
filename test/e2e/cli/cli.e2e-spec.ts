import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { catalogFile, freePort, RedisTestContext, unservedStatusPage, VigilStack } from '@vigil/testing';

const ROOT = join(__dirname, '../../..');
const MEMORY_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `vigil <args>` as a user runs it: the package's bin (scripts/vigil.mjs) over the build, piped. */
function vigil(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/vigil.mjs'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vigil ${args.join(' ')} still running after ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The `vigil` CLI against the running stack (docs/cli.md): the built API, Watcher, Worker and
 * Notifier as processes, the CLI as a process of its own with its output piped (no terminal).
 * `create --watch` exits by outcome (0 completed and verified, 1 failed, 3 waiting for a person),
 * `answer` releases the waiting task, `doctor` names a bad catalog entry, an MCP server that does
 * not start and an unreachable Redis, and the typed client's generated types match the OpenAPI
 * document the built API serves.
 */
describe('the vigil CLI against the running stack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-e2e-'));
  const catalogPath = catalogFile(
    {
      mcpServers: {},
      httpTools: { status_page: unservedStatusPage() },
      tenants: { acme: { allow: ['status_page'] } },
    },
    dir,
  );
  const ctx = new RedisTestContext('cli-e2e');
  let stack: VigilStack;
  let cli: Record<string, string>;

  /** A task body in a file, as a user writes one. */
  function bodyFile(name: string, body: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(body));
    return path;
  }

  beforeAll(async () => {
    stack = new VigilStack(ctx, {
      VIGIL_TOOLS: catalogPath,
      TOOLS_ALLOW_PRIVATE: 'true',
      OBJECT_STORE_URL: `file://${join(dir, 'objects')}`,
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
      // A noop of 40 steps needs three slices: it fails on the limit, a noop of 3 does not.
      TASK_MAX_SLICES: '2',
    });
    await stack.startAll(['api', 'watcher', 'worker', 'notifier']);
    const api = stack.processes.find((process) => process.name === 'api')!;
    cli = { VIGIL_URL: `http://127.0.0.1:${api.port}`, VIGIL_API_KEY: 'test-key-0001' };
  }, 90_000);

  afterAll(() => ctx.close());

  it('create --watch of a noop task exits 0 and prints the verified result, in plain lines', async () => {
    const file = bodyFile('noop.json', { kind: 'noop', title: 'three quick steps', input: { steps: 3 } });
    const run = await vigil(['tasks', 'create', '-f', file, '--watch'], cli);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const id = /^created (tsk_\w+)$/m.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toMatch(/^completed after 1 attempt, 1 slice, \$0\.00, verified$/m);
    expect(run.stdout).toMatch(/^ {2}pass {2}all_steps_recorded {2}expected 3 {2}actual 3$/m);
    expect(run.stdout).toMatch(/^result: .*All planned steps completed/m);
    expect(run.stdout).not.toMatch(/[\r\x1b]/);
    expect((await stack.tasks.get(id!))?.status).toBe('completed');

    const get = await vigil(['tasks', 'get', id!, '--json'], cli);
    expect(JSON.parse(get.stdout)).toMatchObject({ id, status: 'completed', completedUnits: 3 });
  });

  it('schedules: create, list, trigger, runs, pause, show and delete through the typed client', async () => {
    const file = bodyFile('schedule.json', {
      name: 'nightly check',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      task: { kind: 'noop', input: { steps: 1 } },
      overlap: 'skip',
    });
    const created = await vigil(['schedules', 'create', '-f', file, '--json'], cli);
    expect(created.stderr).toBe('');
    const schedule = JSON.parse(created.stdout) as { id: string; state: string };
    expect(schedule).toMatchObject({ id: expect.stringMatching(/^sch_/), state: 'active' });
    const list = await vigil(['schedules', 'list'], cli);
    expect(list.stdout).toMatch(
      new RegExp(`^${schedule.id} +active +0 3 \\* \\* \\* +Europe/Berlin +skip +`, 'm'),
    );
    const trigger = await vigil(['schedules', 'trigger', schedule.id], cli);
    const taskId = /^created task (tsk_\w+)$/m.exec(trigger.stdout)?.[1];
    expect(taskId).toBeDefined();
    expect((await stack.tasks.get(taskId!))?.tenantId).toBe('acme');
    const runs = await vigil(['schedules', 'runs', schedule.id], cli);
    expect(runs.stdout).toMatch(new RegExp(`manual +created +${taskId}`));
    expect((await vigil(['schedules', 'pause', schedule.id], cli)).stdout).toBe(`${schedule.id}: paused\n`);
    expect((await vigil(['schedules', 'show', schedule.id], cli)).stdout).toMatch(
      /^next fire: none \(paused\)$/m,
    );
    expect((await vigil(['schedules', 'delete', schedule.id], cli)).stdout).toBe(`deleted ${schedule.id}\n`);
    const gone = await vigil(['schedules', 'show', schedule.id], cli);
    expect(gone.code).toBe(4);
  });

  it('create --watch of a task that fails exits 1 and says why', async () => {
    const file = bodyFile('too-long.json', { kind: 'noop', title: 'too long', input: { steps: 40 } });
    const run = await vigil(['tasks', 'create', '-f', file, '--watch'], cli);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^failed after \d+ attempts?/m);
    expect(run.stdout).toMatch(/^failure: .*TASK_MAX_SLICES \(2\) reached/m);
    const id = /^created (tsk_\w+)$/m.exec(run.stdout)![1];
    expect((await stack.tasks.get(id))?.status).toBe('failed');
  });

  it('a task waiting for a person exits 3, and answer releases it to complete', async () => {
    const file = bodyFile('ask.json', {
      kind: 'mission',
      title: 'Ask which region goes first',
      input: {
        goal: 'Ask which region goes first, then record it.',
        tools: ['status_page'],
        evidence: 'findings_only',
      },
      exitCriteria: [{ check: 'findings_count', expected: 2 }],
      agent: {
        scripted: {
          plan: [
            { tool: 'record_finding', args: { title: 'Regions listed', body: 'EU and US.' } },
            { tool: 'request_human_input', args: { question: 'Which region should go first?' } },
            { tool: 'record_finding', args: { title: 'Region chosen', body: 'As the person answered.' } },
            { tool: 'finish_task', args: { summary: 'Asked and recorded the region.' } },
          ],
        },
      },
    });
    const waiting = await vigil(['tasks', 'create', '-f', file, '--watch'], cli);
    expect(waiting.code).toBe(3);
    expect(waiting.stdout).toMatch(/^waiting for a person: Which region should go first\?$/m);
    const id = /^created (tsk_\w+)$/m.exec(waiting.stdout)![1];
    expect(waiting.stdout).toContain(`answer with: vigil tasks answer ${id} "<your answer>"`);
    expect((await stack.tasks.get(id))?.status).toBe('waiting_on_human');

    const answered = await vigil(['tasks', 'answer', id, 'EU', 'first'], cli);
    expect(answered.code).toBe(0);
    // The control's answer is the task as read after it: queued, or already picked up again.
    expect(answered.stdout).toMatch(new RegExp(`^${id}: (queued|running|verifying|completed)\n$`));

    const watched = await vigil(['tasks', 'watch', id], cli);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/^completed after .*, verified$/m);
    const findings = await vigil(['tasks', 'findings', id], cli);
    expect(findings.stdout).toBe('Regions listed — EU and US.\nRegion chosen — As the person answered.\n');
  });

  it('says which id a 404 is about, and that the API is not running at VIGIL_URL', async () => {
    const missing = await vigil(['tasks', 'get', 'tsk_000000000000000000000000'], cli);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 4,
      stderr:
        "vigil: no task tsk_000000000000000000000000 for this API key's tenant (404): check the id with vigil tasks ls\n",
    });
    const down = await vigil(['tasks', 'ls'], { ...cli, VIGIL_URL: `http://127.0.0.1:${await freePort()}` });
    expect(down.code).toBe(4);
    expect(down.stderr).toMatch(
      /cannot reach the Vigil API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): is the API running there\?/,
    );
  });

  describe('doctor', () => {
    /** The environment the apps of the stack run with, as an operator would pass it to doctor. */
    const appEnv = (extra: Record<string, string> = {}) => ctx.env({ ...stack.env, ...extra });

    it('passes on the running setup, starting each MCP server of the catalog', async () => {
      const good = join(dir, 'good.tools.json');
      writeFileSync(
        good,
        JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER] } } }),
      );
      const run = await vigil(['doctor'], appEnv({ VIGIL_TOOLS: good }));
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ok +redis +redis:\/\/.* answers \(Redis [\d.]+\)/m);
      expect(run.stdout).toMatch(
        /^ok +object store +file:\/\/.*: a probe object written, read back and deleted$/m,
      );
      expect(run.stdout).toMatch(/^ok +mcp memory +started; lists \d+ tools \(.*create_entities/m);
      expect(run.stdout).toMatch(/^doctor: no problem found$/m);
    });

    it('names a bad catalog entry and exits 1', async () => {
      const bad = join(dir, 'bad.tools.json');
      writeFileSync(bad, JSON.stringify({ mcpServers: { broken: { args: ['server.js'] } } }));
      const run = await vigil(['doctor'], appEnv({ VIGIL_TOOLS: bad }));
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        new RegExp(`^FAIL +catalog +VIGIL_TOOLS \\(${bad}\\).*mcpServers\\.broken`, 'm'),
      );
      expect(run.stdout).toMatch(/^ok +redis /m);
      expect(run.stdout).toMatch(/^doctor: 1 problem: catalog$/m);
    });

    it('names an MCP server that does not start and exits 1', async () => {
      const ghost = join(dir, 'ghost.tools.json');
      writeFileSync(
        ghost,
        JSON.stringify({ mcpServers: { ghost: { command: join(dir, 'no-such-server') } } }),
      );
      const run = await vigil(['doctor'], appEnv({ VIGIL_TOOLS: ghost }));
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^FAIL +mcp ghost +MCP server "ghost" .*fix mcpServers\.ghost in /m);
      expect(run.stdout).toMatch(/^doctor: 1 problem: mcp ghost$/m);
    });

    it('names an unreachable Redis and exits 1', async () => {
      const closed = `redis://127.0.0.1:${await freePort()}`;
      const run = await vigil(['doctor', '--json'], appEnv({ REDIS_URL: closed }));
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as {
        ok: boolean;
        checks: { check: string; status: string; detail: string }[];
      };
      expect(report.ok).toBe(false);
      const redis = report.checks.find((check) => check.check === 'redis')!;
      expect(redis.status).toBe('fail');
      expect(redis.detail).toContain(`cannot reach Redis at ${closed}`);
      expect(redis.detail).toContain('set REDIS_URL');
      expect(report.checks.filter((check) => check.status === 'fail').map((check) => check.check)).toEqual([
        'redis',
      ]);
    });
  });

  it("the typed client's generated types match the OpenAPI document the built API serves", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/generate-client-types.mjs', '--check', '--url', cli.VIGIL_URL],
      { cwd: ROOT },
    );
    expect(stdout).toBe(
      'generate-client-types: libs/client/src/openapi.generated.ts matches the served OpenAPI document\n',
    );
  });
});
