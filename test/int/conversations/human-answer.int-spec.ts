import { TaskRepository } from '@vigil/tasks';
import { newNoopTask, RedisTestContext, TEST_CLAIM, redisLifecycle } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

/**
 * The answer pages of human hand-offs over real HTTP (docs/conversations.md, "Human hand-offs"):
 * the link opens any number of times, takes one answer through the same use case as
 * `POST /v1/tasks/:id/input`, then says it was answered; a forged or stale secret opens nothing.
 */
describe('GET and POST /h/<task id>.<secret>', () => {
  const ctx = new RedisTestContext('human-answer', { API_KEYS: 'acme:acme-key-123' });
  let api: InProcessApi;
  let base: string;
  let tasks: TaskRepository;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    base = api.baseUrl;
    tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  });
  afterAll(() => ctx.close());

  /** A task whose slice asked a person, as the Worker leaves it. */
  async function asking(question: string) {
    const id = TaskRepository.newTaskId();
    const { task } = await tasks.create(id, newNoopTask({ title: 'Pick a launch date' }));
    const { lifecycle } = redisLifecycle(ctx);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.askPerson(task, { attempt: 1, question });
    return `${base}/h/${id}.${(await tasks.get(id))!.humanToken!}`;
  }
  const answer = (url: string, form: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  it('opens after a reload and from a second device, takes one answer, then says it was answered', async () => {
    const url = await asking('Which <date> should we launch on?');
    for (let open = 0; open < 2; open++) {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      const html = await page.text();
      expect(html).toContain('Which &lt;date&gt; should we launch on?');
      expect(html).toContain('<form method="post">');
      expect(html).not.toContain('<script');
    }

    const first = await answer(url, { text: 'The 14th' });
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('your answer was received');
    const id = /\/h\/(tsk_[a-f0-9]+)\./.exec(url)![1];
    expect(await tasks.get(id)).toMatchObject({ status: 'queued', humanInput: 'The 14th' });

    const second = await answer(url, { text: 'No, the 15th' });
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('already answered');
    expect((await tasks.get(id))!.humanInput).toBe('The 14th');
    const reopened = await fetch(url);
    expect(reopened.status).toBe(409);
  });

  it('refuses an empty answer without losing the question, and a forged secret opens nothing', async () => {
    const url = await asking('Which market first?');
    const empty = await answer(url, { text: '   ' });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('Write an answer');
    expect((await fetch(url)).status).toBe(200);

    const forged = url.replace(/\.[^./]+$/, '.secret-cccccccccccccccccccc');
    expect((await fetch(forged)).status).toBe(404);
    expect((await answer(forged, { text: 'EU' })).status).toBe(404);
    expect((await fetch(`${base}/h/not-a-token`)).status).toBe(404);
  });
});
