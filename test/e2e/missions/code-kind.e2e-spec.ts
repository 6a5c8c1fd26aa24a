import { AppProcess, RedisTestContext, VigilStack } from '@vigil/testing';

/**
 * A code kind loaded without forking: the example module of examples/kinds, named in VIGIL_KINDS,
 * is loaded by the built api, worker and watcher, and one of its tasks runs to `completed`,
 * verified by the kind's own exit check. A module that cannot be used stops the app at boot.
 */
describe('a code kind from VIGIL_KINDS', () => {
  const ctx = new RedisTestContext('code-kind');
  let stack: VigilStack;

  beforeAll(async () => {
    stack = new VigilStack(ctx, {
      VIGIL_KINDS: 'examples/kinds/word-count.kind.js',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
    });
    await Promise.all([stack.start('api'), stack.start('watcher'), stack.start('worker')]);
  });
  afterAll(() => ctx.close());

  it('runs a task of the example kind to completed, verified by its check', async () => {
    const documents = [
      { name: 'a.txt', text: 'one two three' },
      { name: 'b.txt', text: 'four  five\nsix seven' },
    ];
    // The kind offers no plan: the scripted driver (no model key here) plays the request's own.
    const plan = documents.map((doc) => ({ tool: 'count_words', args: { name: doc.name } }));
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'word_count',
      input: { documents },
      agent: { scripted: { plan } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'word_count',
      title: 'Count the words of 2 documents',
      exitCriteria: [{ check: 'all_documents_counted', expected: true }],
      totalUnits: 2,
    });
    const done = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'completed',
      30_000,
      'completion',
    );
    expect(done.verification).toMatchObject({
      passed: true,
      checks: [{ check: 'all_documents_counted', expected: true, actual: true, passed: true }],
    });
    const actions = await stack.api!.get(`/v1/tasks/${done.id}/actions`);
    const counts = actions.body.data.filter((a: { tool: string }) => a.tool === 'count_words');
    expect(counts.map((a: { result: unknown }) => a.result)).toEqual([
      { name: 'a.txt', words: 3 },
      { name: 'b.txt', words: 4 },
    ]);
  });

  it('refuses input its schema refuses, naming the field', async () => {
    const refused = await stack.api!.post('/v1/tasks', {
      kind: 'word_count',
      input: { documents: [{ name: 'bad name', text: 'x' }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('input.documents[0].name');
  });

  it('stops an app whose VIGIL_KINDS names a module that cannot be loaded, naming it (exit 78)', async () => {
    const app = AppProcess.start('api', {
      ...ctx.env({
        VIGIL_KINDS: 'examples/kinds/missing.kind.js',
        PORT: '0',
      }),
    });
    const exit = await app.exited();
    expect(exit.code).toBe(78);
    expect(app.text()).toContain(
      'invalid VIGIL_KINDS: kind module examples/kinds/missing.kind.js: cannot be loaded',
    );
  });
});
