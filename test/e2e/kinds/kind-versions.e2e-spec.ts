import { RedisTestContext, VigilStack } from '@vigil/testing';

const METRICS_TOKEN = 'metrics-token-kind-versions';
const ADMIN_PASSWORD = 'admin-password-kind-versions';
/** The kind module of every app; its version and compatible versions come from the environment. */
const KIND_MODULE = 'test/support/versioned-kind.js';
const version = (own: number, compatible: number[] = []) => ({
  VERSIONED_KIND_VERSION: String(own),
  VERSIONED_KIND_COMPATIBLE: compatible.join(','),
});

/**
 * A task parked on a person's question survives a deploy of its kind (docs/kinds.md, "Versions"):
 * created at version 1, it waits on a person while the Workers are replaced by version 2. A
 * version 2 that declares 1 compatible continues it after the answer; one that does not leaves it
 * waiting with its reason on the task view, the dashboard and a metric, untouched by the Watcher
 * and with no retry spent, until a Worker that runs version 1 starts, which completes it.
 */
describe('kind versions across a deploy, with real processes', () => {
  const ctx = new RedisTestContext('kind-versions');
  let stack: VigilStack;

  beforeAll(async () => {
    stack = new VigilStack(ctx, {
      VIGIL_KINDS: KIND_MODULE,
      METRICS_TOKEN,
      ADMIN_PASSWORD,
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '2000',
      WATCHER_INTERVAL_MS: '300',
    });
    // The API and the Watcher stay at version 1 throughout: only the Workers are deployed again.
    await stack.start('api');
    await stack.start('watcher');
    await stack.start('worker', version(1));
  });
  afterAll(() => ctx.close());

  const plan = [
    { tool: 'record_finding', args: { title: 'Regions listed', body: 'EU and US.' } },
    { tool: 'request_human_input', args: { question: 'Which region goes first?' } },
    { tool: 'record_finding', args: { title: 'Region chosen', body: 'As the person answered.' } },
    { tool: 'finish_task', args: { summary: 'Asked and recorded the region.' } },
  ];

  /** A version 1 task parked on its question, while a Worker that runs version 1 is up. */
  async function parkedTask(topic: string): Promise<string> {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'versioned_ask',
      input: { topic },
      agent: { scripted: { plan } },
    });
    expect(created.status).toBe(201);
    expect(created.body.kindVersion).toBe(1);
    const id = created.body.id as string;
    await stack.waitForTask(id, (t) => t.status === 'waiting_on_human', 30_000, 'the question');
    return id;
  }

  /** Replaces every Worker by one of `env`'s kind version (a deploy: SIGTERM, drained). */
  async function deployWorkers(env: Record<string, string>): Promise<void> {
    await stack.stopApps('worker');
    await stack.start('worker', env);
  }

  const answer = (id: string) => stack.api!.post(`/v1/tasks/${id}/input`, { text: 'EU first' });

  it('continues a version 1 task on a version 2 Worker that declares 1 compatible', async () => {
    const id = await parkedTask('compatible');
    await deployWorkers(version(2, [1]));
    expect((await answer(id)).status).toBe(200);
    const done = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(done).toMatchObject({ kindVersion: 1, retryCount: 0, retryHistory: [], attempt: 1 });
  });

  it('keeps a task no Worker can run waiting with its reason, until a compatible Worker starts', async () => {
    const id = await parkedTask('incompatible');
    await deployWorkers(version(2));
    expect((await answer(id)).status).toBe(200);
    const waiting = await stack.waitForTask(
      id,
      (t) => t.status === 'paused',
      30_000,
      'the wait for a Worker of version 1',
    );
    expect(waiting).toMatchObject({ statusReason: 'kind_version_unavailable', kindVersion: 1, attempt: 1 });

    // Told on the task view, the dashboard and the API's metrics.
    const view = (await stack.api!.get(`/v1/tasks/${id}`)).body;
    expect(view).toMatchObject({
      status: 'paused',
      statusReason: 'kind_version_unavailable',
      kindVersion: 1,
    });
    const base = stack.api!.baseUrl;
    const page = await fetch(`${base}/admin/tasks/${id}`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
    });
    const html = await page.text();
    expect(html).toContain('versioned_ask (version 1)');
    expect(html).toMatch(/kind.version.unavailable/);
    const metrics = await (
      await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/^vigil_tasks_waiting_for_version\{kind="versioned_ask",version="1"[^}]*\} 1$/m);

    // Past the stale time and many Watcher sweeps: not recovered, no retry spent, no new attempt.
    await new Promise((resolve) => setTimeout(resolve, 3 * 2000));
    expect(await stack.tasks.get(id)).toMatchObject({
      status: 'paused',
      statusReason: 'kind_version_unavailable',
      attempt: 1,
      retryCount: 0,
      retryHistory: [],
    });

    // A Worker of version 3 that continues 1 and 2 starts beside the version 2 one: the task completes.
    await stack.start('worker', version(3, [1, 2]));
    const done = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(done).toMatchObject({ kindVersion: 1, retryCount: 0, retryHistory: [], attempt: 1 });
    const after = await (
      await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(after).not.toMatch(/^vigil_tasks_waiting_for_version\{kind="versioned_ask",version="1"/m);
  });
});
