import { HttpClient, RedisTestContext } from '@vigil/testing';
import { TaskRepository } from '@vigil/tasks';
import { MAX_DASHBOARD_STREAMS } from '../../../apps/api/src/dashboard/dashboard-live.controller';
import { InProcessApi } from '../../support/in-process-api';
import { SseClient } from '../../support/sse-client';

const PASSWORD = 'dash-password-01';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ADMIN = { authorization: basic('admin', PASSWORD) };

/**
 * The task dashboard at /admin/tasks (docs/operations.md, "The task dashboard"): basic auth on
 * every page, refused entirely without ADMIN_PASSWORD, lists from the indexes, CSRF-protected
 * buttons that call the control use cases, a CSP without inline scripts, live over SSE.
 */
describe('the task dashboard', () => {
  const ctx = new RedisTestContext('dash', {
    API_KEYS: 'acme:acme-key-0001,beta:beta-key-0001',
    ADMIN_PASSWORD: PASSWORD,
  });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  let base = '';
  let closedBase = '';
  let acme: HttpClient;
  let beta: HttpClient;

  beforeAll(async () => {
    base = (await InProcessApi.start(ctx)).baseUrl;
    closedBase = (await InProcessApi.start(ctx, { ...ctx.config, adminPassword: undefined })).baseUrl;
    acme = new HttpClient(base, 'acme-key-0001');
    beta = new HttpClient(base, 'beta-key-0001');
  });

  afterAll(() => ctx.close());

  const page = (path: string, headers: Record<string, string> = ADMIN, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      redirect: 'manual',
      ...init,
      headers: { ...headers, ...(init.headers ?? {}) },
    });

  it('answers 401 on every admin page without credentials and with wrong ones', async () => {
    const { body: task } = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
    const paths = [
      ['GET', '/admin/tasks'],
      ['GET', '/admin/tasks?status=queued&tenant=acme'],
      ['GET', `/admin/tasks/${task.id}`],
      ['GET', '/admin/tasks/live'],
      ['GET', `/admin/tasks/${task.id}/live`],
      ['GET', '/admin/tasks/assets/dashboard.js'],
      ['GET', '/admin/tasks/assets/dashboard.css'],
      ['POST', `/admin/tasks/${task.id}/stop`],
      ['GET', '/admin/queues'],
    ];
    const wrong: Record<string, string>[] = [
      {},
      { authorization: basic('admin', 'not-the-password') },
      { authorization: basic('root', PASSWORD) },
      { authorization: 'Bearer acme-key-0001' },
    ];
    for (const [method, path] of paths)
      for (const headers of wrong) {
        const response = await page(path, headers, { method });
        expect({ method, path, headers, status: response.status }).toEqual({
          method,
          path,
          headers,
          status: 401,
        });
        expect(response.headers.get('www-authenticate')).toBe('Basic realm="vigil admin"');
      }
    expect((await tasks.get(task.id))?.status).toBe('queued');
  });

  it('does not exist when ADMIN_PASSWORD is unset', async () => {
    for (const path of [
      '/admin/tasks',
      '/admin/tasks/live',
      '/admin/tasks/assets/dashboard.js',
      '/admin/queues',
    ])
      expect((await fetch(`${closedBase}${path}`, { headers: ADMIN })).status).toBe(404);
  });

  it('lists tasks from the indexes, filtered by status and tenant, under a CSP without inline scripts', async () => {
    const { body: mine } = await acme.post('/v1/tasks', {
      kind: 'noop',
      title: 'acme <b>list</b>',
      input: { steps: 2 },
    });
    const { body: theirs } = await beta.post('/v1/tasks', {
      kind: 'noop',
      title: 'beta list',
      input: { steps: 2 },
    });
    await acme.post(`/v1/tasks/${mine.id}/pause`);

    const all = await page('/admin/tasks');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/^text\/html/);
    expect(all.headers.get('cache-control')).toBe('no-store');
    const csp = all.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await all.text();
    expect(html).toContain(`id="task-${mine.id}"`);
    expect(html).toContain(`id="task-${theirs.id}"`);
    // Escaped, never markup; and every script is an external same-origin file.
    expect(html).toContain('acme &lt;b&gt;list&lt;/b&gt;');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc="\/admin\/tasks\/assets\/)/);
    expect(html).not.toMatch(/\sstyle="/);

    const paused = await (await page('/admin/tasks?status=paused')).text();
    expect(paused).toContain(`id="task-${mine.id}"`);
    expect(paused).not.toContain(`id="task-${theirs.id}"`);
    const beta1 = await (await page('/admin/tasks?tenant=beta')).text();
    expect(beta1).toContain(`id="task-${theirs.id}"`);
    expect(beta1).not.toContain(`id="task-${mine.id}"`);
    expect(await (await page('/admin/tasks?status=bogus')).json()).toMatchObject({ statusCode: 400 });

    const script = await page('/admin/tasks/assets/dashboard.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain('new EventSource');
  });

  it('lists every tenant’s schedules and shows a schedule’s runs linked to their tasks, behind basic auth', async () => {
    const body = (name: string) => ({
      name,
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      task: { kind: 'noop', input: { steps: 1 } },
      overlap: 'allow',
    });
    const mine = (await acme.post('/v1/schedules', body('acme <nightly>'))).body;
    await beta.post('/v1/schedules', body('beta weekly'));
    const run = (await acme.post(`/v1/schedules/${mine.id}/trigger`)).body;
    expect((await page('/admin/tasks/schedules', {})).status).toBe(401);
    const list = await (await page('/admin/tasks/schedules')).text();
    expect(list).toContain('acme &lt;nightly&gt;');
    expect(list).toContain('beta weekly');
    expect(list).toContain(`href="/admin/tasks/schedules/${mine.id}"`);
    const one = await (await page(`/admin/tasks/schedules/${mine.id}`)).text();
    expect(one).toContain('<code>0 3 * * *</code> in Europe/Berlin');
    expect(one).toContain(`<a href="/admin/tasks/${run.taskId}">${run.taskId}</a>`);
    expect(one).toMatch(/<td>manual<\/td>\s*<td>created<\/td>/);
    expect((await page('/admin/tasks/schedules/sch_none')).status).toBe(404);
  });

  it('shows a task page and runs stop only with the session CSRF token', async () => {
    const { body: task } = await acme.post('/v1/tasks', {
      kind: 'noop',
      title: 'to stop',
      input: { steps: 4 },
    });
    const response = await page(`/admin/tasks/${task.id}`);
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^vigil_admin_csrf=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict$/);
    const token = /vigil_admin_csrf=([A-Za-z0-9_-]{43})/.exec(cookie)![1];
    const html = await response.text();
    expect(html).toContain(`<input type="hidden" name="csrf" value="${token}">`);
    expect(html).toContain('data-control="stop"');
    expect(html).toContain('data-control="pause"');
    expect(html).not.toContain('data-control="resume"');
    // The verification table lists the kind's exit criterion before any verification.
    expect(html).toMatch(/<table class="verification">[\s\S]*<td>pending<\/td>/);
    expect(html).toContain('task.created');

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const refusals = [
      { headers: form, body: `csrf=${token}` }, // the field without the cookie
      { headers: { ...form, cookie: `vigil_admin_csrf=${token}` }, body: '' }, // the cookie alone
      { headers: { ...form, cookie: `vigil_admin_csrf=${token}` }, body: `csrf=${'x'.repeat(43)}` },
    ];
    for (const refusal of refusals) {
      const refused = await page(`/admin/tasks/${task.id}/stop`, ADMIN, { method: 'POST', ...refusal });
      expect(refused.status).toBe(403);
    }
    expect((await tasks.get(task.id))?.status).toBe('queued');

    const stopped = await page(`/admin/tasks/${task.id}/stop`, ADMIN, {
      method: 'POST',
      headers: { ...form, cookie: `vigil_admin_csrf=${token}` },
      body: `csrf=${token}`,
    });
    expect(stopped.status).toBe(303);
    expect(stopped.headers.get('location')).toBe(`/admin/tasks/${task.id}`);
    expect((await tasks.get(task.id))?.status).toBe('cancelled');
    // The same use case as the API: a second stop is a 409 with the current status.
    const again = await page(`/admin/tasks/${task.id}/stop`, ADMIN, {
      method: 'POST',
      headers: { cookie: `vigil_admin_csrf=${token}`, 'x-csrf-token': token },
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ statusCode: 409, currentStatus: 'cancelled' });
    expect((await page('/admin/tasks/no-such-task')).status).toBe(404);
  });

  it('pushes a changed task over SSE: its page body and its list row', async () => {
    const { body: task } = await acme.post('/v1/tasks', {
      kind: 'noop',
      title: 'live one',
      input: { steps: 4 },
    });
    const after = String(Date.now());
    const taskStream = await SseClient.open(`${base}/admin/tasks/${task.id}/live?after=${after}`, ADMIN);
    const listStream = await SseClient.open(`${base}/admin/tasks/live?tenant=acme&after=${after}`, ADMIN);
    const otherTenant = await SseClient.open(`${base}/admin/tasks/live?tenant=beta&after=${after}`, ADMIN);
    try {
      expect(taskStream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await acme.post(`/v1/tasks/${task.id}/pause`)).status).toBe(200);
      await taskStream.waitFor((client) =>
        client.frames.some(
          (frame) => frame.event === 'page' && frame.data.html.includes('data-field="status">paused'),
        ),
      );
      await listStream.waitFor((client) =>
        client.frames.some(
          (frame) =>
            frame.event === 'row' && frame.data.id === task.id && frame.data.html.includes('>paused<'),
        ),
      );
      const page = taskStream.frames.find((frame) => frame.event === 'page')!;
      expect(page.data.html).toContain('data-control="resume"');
      expect(page.data.html).toContain('task.paused');
      expect(otherTenant.frames.filter((frame) => frame.event === 'row')).toEqual([]);
    } finally {
      await Promise.all([taskStream.close(), listStream.close(), otherTenant.close()]);
    }
  });

  it('bounds the open dashboard streams of one API process (each holds a Redis connection)', async () => {
    const streams = await Promise.all(
      Array.from({ length: MAX_DASHBOARD_STREAMS }, () => SseClient.open(`${base}/admin/tasks/live`, ADMIN)),
    );
    try {
      expect(streams.map((stream) => stream.status)).toEqual(streams.map(() => 200));
      const refused = await page('/admin/tasks/live');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await Promise.all(streams.map((stream) => stream.close()));
    }
    // Closed streams free their places.
    const deadline = Date.now() + 5_000;
    let again = await SseClient.open(`${base}/admin/tasks/live`, ADMIN);
    while (again.status !== 200 && Date.now() < deadline) {
      await again.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await SseClient.open(`${base}/admin/tasks/live`, ADMIN);
    }
    expect(again.status).toBe(200);
    await again.close();
  });
});
