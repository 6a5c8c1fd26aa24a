import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTaskEvent } from '@vigil/events';
import { FileObjectStore, ObjectKeys } from '@vigil/object-store';
import { MessageLog, StepRecorder, TaskArchiveWriter, TaskLifecycle } from '@vigil/tasks';
import { HttpClient, RedisTestContext, stepAction, TEST_CLAIM } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';
import { SseClient } from '../../support/sse-client';

/**
 * An archived task stays readable (docs/api.md, "Archived tasks"): real tasks made through the API
 * and the runtime's own writers, archived as retention archives them (TaskArchiveWriter into a
 * `file://` object store, then `removeExpired` takes them out of Redis); every read answers the
 * same bytes as before, but for `archived: true` in the task view.
 */
describe('archived tasks over HTTP', () => {
  const directory = mkdtempSync(join(tmpdir(), 'vigil-archived-'));
  const ctx = new RedisTestContext('archived', {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456,initech:initech-key-789',
    ADMIN_PASSWORD: 'dash-password-01',
    OBJECT_STORE_URL: `file://${directory}`,
  });
  const store = new FileObjectStore(directory);
  const writer = new TaskArchiveWriter(ctx.redis, ctx.keys, store);
  let api: InProcessApi;
  let acme: HttpClient;
  let globex: HttpClient;
  let initech: HttpClient;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
    globex = acme.withKey('globex-key-456');
    initech = acme.withKey('initech-key-789');
  });

  afterAll(async () => {
    await ctx.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A task that ran: steps, a finding, a write, two user messages; then stopped (terminal). */
  async function ranTask(client: HttpClient, tenantId: string, title: string): Promise<string> {
    const created = await client.post('/v1/tasks', { kind: 'noop', input: { steps: 3 }, title });
    expect(created.status).toBe(201);
    const task = { id: created.body.id as string, tenantId };
    await api.app.get(TaskLifecycle).claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const recorder = api.app.get(StepRecorder);
    for (const n of [1, 2])
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: stepAction('noop_step', `step:${n}`, { n }, { ok: n }, 1_700_000_000_000 + n),
        succeeded: true,
        currentStep: `noop_step step:${n}`,
      });
    const finding = { title: 'Refunds are rare', body: 'Under 1% of orders.', data: { share: 0.008 } };
    await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: stepAction('record_finding', null, finding, { recorded: true }, 1_700_000_000_003),
      succeeded: true,
      finding,
      currentStep: 'record_finding',
    });
    const messages = api.app.get(MessageLog);
    for (const [i, text] of ['Started.', 'Two of three steps done.'].entries())
      await messages.append(
        {
          id: `m-${task.id}-${i}`,
          taskId: task.id,
          kind: 'progress',
          text,
          sentAt: new Date(1_700_000_000_000 + i).toISOString(),
          attempt: 1,
        },
        false,
        [],
        Date.now(),
      );
    return task.id;
  }

  /** What retention does once a finished task's time is up: archived, read back, then removed from Redis. */
  async function archive(taskId: string): Promise<void> {
    const payload = await writer.collect(taskId, Date.now());
    if (!payload) throw new Error(`no task ${taskId} to archive`);
    await writer.write(payload);
    const removed = await api.app.get(TaskLifecycle).removeExpired({
      id: taskId,
      tenantId: payload.tenantId,
      parentId: payload.record.parentId || null,
      finishedAt: Number(payload.record.finishedAt),
    });
    expect(removed).toBe('removed');
    expect(await ctx.redis.exists(ctx.keys.task(taskId))).toBe(0);
  }

  const READS = [
    '',
    '/actions',
    '/actions?limit=2',
    '/actions?limit=2&cursor=2',
    '/findings',
    '/findings?limit=1',
    '/messages',
    '/messages?limit=1',
    '/messages?limit=1&cursor=1',
    '/report',
    '/children',
    '/artifacts',
  ];

  /** Every read's status and body exactly as sent. */
  async function readAll(
    apiKey: string,
    taskId: string,
  ): Promise<Record<string, { status: number; text: string }>> {
    const bodies: Record<string, { status: number; text: string }> = {};
    for (const path of READS) {
      const response = await fetch(`${acme.baseUrl}/v1/tasks/${taskId}${path}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      bodies[path] = { status: response.status, text: await response.text() };
    }
    return bodies;
  }

  it('answers every read of an archived task with the bytes it answered before, but for archived: true', async () => {
    const parent = await ranTask(acme, 'acme', 'Survey refunds');
    const child = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 1 }, parentId: parent });
    expect(child.status).toBe(201);
    // Stopping cascades: parent and child are finished, the only tasks ever archived.
    expect((await acme.post(`/v1/tasks/${parent}/stop`)).body.status).toBe('cancelled');
    expect((await acme.get(`/v1/tasks/${child.body.id}`)).body.status).toBe('cancelled');

    const before = await readAll('acme-key-123', parent);
    for (const [path, { status }] of Object.entries(before)) expect([path, status]).toEqual([path, 200]);
    const view = JSON.parse(before[''].text);
    expect(view).toMatchObject({ status: 'cancelled', archived: false });
    expect(JSON.parse(before['/actions?limit=2'].text)).toMatchObject({ nextCursor: '2' });
    expect(JSON.parse(before['/messages'].text).data).toHaveLength(2);
    expect(before['/report'].text).toMatch(/^# Survey refunds\n/);
    expect(JSON.parse(before['/children'].text).data.map((task: { id: string }) => task.id)).toEqual([
      child.body.id,
    ]);
    expect(JSON.parse(before['/artifacts'].text)).toEqual({ data: [] });

    await archive(parent);
    const after = await readAll('acme-key-123', parent);
    const archivedView = before[''].text.replace('"archived":false', '"archived":true');
    expect(archivedView).not.toBe(before[''].text);
    expect(after).toEqual({ ...before, '': { status: 200, text: archivedView } });
    // Live reads no longer know it: only the archive answered.
    expect(
      (await acme.get('/v1/tasks?limit=100')).body.data.map((task: { id: string }) => task.id),
    ).not.toContain(parent);

    // Its child archived too: read from its own archive, archived: true in the parent's list.
    await archive(child.body.id);
    const children = await acme.get(`/v1/tasks/${parent}/children`);
    expect(children.body.data).toEqual([{ ...JSON.parse(before['/children'].text).data[0], archived: true }]);
  });

  /** The task's event stream, read to its end. */
  async function eventStream(taskId: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = await SseClient.open(`${acme.baseUrl}/v1/tasks/${taskId}/events`, {
      authorization: 'Bearer acme-key-123',
      ...headers,
    });
    await client.waitFor((read) => read.ended);
    return client;
  }

  it("replays an archived task's messages and its end on its event stream, then ends", async () => {
    const id = await ranTask(acme, 'acme', 'Streamed survey');
    await acme.post(`/v1/tasks/${id}/stop`);
    const shard = ctx.keys.shardOf(id);
    const cancelled = (await ctx.redis.xrange(ctx.keys.events(shard), '-', '+'))
      .map(([streamId, fields]) => parseTaskEvent(shard, streamId, fields))
      .find((event) => event.taskId === id && event.type === 'task.cancelled')!;
    // The final message, as the notifier keys it: by the terminal event it answered.
    const final = {
      id: `${id}-ev-${cancelled.id}`,
      taskId: id,
      kind: 'control' as const,
      text: 'Stopped.',
      sentAt: new Date(cancelled.at).toISOString(),
      attempt: cancelled.attempt,
    };
    await api.app.get(MessageLog).append(final, true, [], Date.now());
    const live = await eventStream(id);
    expect(live.events().at(-1)).toMatchObject({
      id: cancelled.id,
      event: 'task.cancelled',
      data: { message: final },
    });

    await archive(id);
    const replay = await eventStream(id);
    expect(replay.status).toBe(200);
    expect(replay.events().map((frame) => [frame.event, frame.id])).toEqual([
      ['message', '1700000000000-0'],
      ['message', '1700000000001-0'],
      ['task.cancelled', cancelled.id],
    ]);
    expect(replay.events()[1].data).toMatchObject({
      type: 'message',
      taskId: id,
      message: { kind: 'progress', text: 'Two of three steps done.' },
    });
    // The end as the live stream sent it: its id, type, status and final message.
    expect(replay.events()[2].data).toMatchObject({
      id: cancelled.id,
      type: 'task.cancelled',
      taskId: id,
      status: 'cancelled',
      message: final,
    });
    const resumed = await eventStream(id, { 'last-event-id': '1700000000000-0' });
    expect(resumed.events().map((frame) => frame.id)).toEqual(['1700000000001-0', cancelled.id]);
    expect((await globex.get(`/v1/tasks/${id}/events`)).status).toBe(404);

    // An archive that cannot be read is the JSON 502 of every read, before any stream opens.
    const key = ObjectKeys.archive('acme', id);
    const original = (await store.get(key))!;
    const flipped = Buffer.from(original);
    flipped[flipped.length - 12] ^= 0xff;
    await store.put(key, flipped, 'application/gzip');
    const unreadable = await acme.get(`/v1/tasks/${id}/events`);
    await store.put(key, original, 'application/gzip');
    expect(unreadable.status).toBe(502);
    expect(unreadable.headers.get('content-type')).toMatch(/^application\/json/);
    expect(unreadable.body.message).toContain(id);
  });

  it('hides an archived task from another tenant, and refuses every control with 409 and its status', async () => {
    const id = await ranTask(acme, 'acme', 'Private survey');
    await acme.post(`/v1/tasks/${id}/stop`);
    await archive(id);
    for (const path of READS) {
      const foreign = await globex.get(`/v1/tasks/${id}${path}`);
      expect([path, foreign.status]).toEqual([path, 404]);
      expect(JSON.stringify(foreign.body)).not.toContain('Private survey');
    }
    expect((await globex.post(`/v1/tasks/${id}/stop`)).status).toBe(404);
    for (const control of ['stop', 'pause', 'resume', 'input']) {
      const refused = await acme.post(
        `/v1/tasks/${id}/${control}`,
        control === 'input' ? { text: 'hi' } : undefined,
      );
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ statusCode: 409, error: 'Conflict', currentStatus: 'cancelled' });
      expect(refused.body.message).toContain('the task is cancelled');
    }
    // Ids no archive can have are a plain 404.
    expect((await acme.get('/v1/tasks/tsk_never_made')).status).toBe(404);
    expect((await acme.get('/v1/tasks/tsk.dotted/actions')).status).toBe(404);
  });

  it('answers 502 naming the task when its archive is corrupt, for a read and for the list', async () => {
    const id = await ranTask(initech, 'initech', 'Corrupt me');
    await initech.post(`/v1/tasks/${id}/stop`);
    await archive(id);
    expect((await initech.get(`/v1/tasks/${id}`)).body.archived).toBe(true);
    const key = ObjectKeys.archive('initech', id);
    const bytes = (await store.get(key))!;
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 12] ^= 0xff;
    await store.put(key, flipped, 'application/gzip');
    for (const path of ['', '/actions', '/report']) {
      const response = await initech.get(`/v1/tasks/${id}${path}`);
      expect(response.status).toBe(502);
      expect(response.body).toEqual({
        statusCode: 502,
        error: 'Bad Gateway',
        message: expect.stringContaining(id),
      });
    }
    const list = await initech.get('/v1/tasks?archived=true');
    expect(list.status).toBe(502);
    expect(list.body.message).toContain(id);
    expect((await initech.post(`/v1/tasks/${id}/resume`)).status).toBe(502);
  });

  it('shows an archived task on the dashboard read-only, under a banner, and refuses a forged control', async () => {
    const admin = { authorization: `Basic ${Buffer.from('admin:dash-password-01').toString('base64')}` };
    const id = await ranTask(acme, 'acme', 'Dashboard survey');
    await acme.post(`/v1/tasks/${id}/pause`);
    const live = await fetch(`${acme.baseUrl}/admin/tasks/${id}`, { headers: admin });
    const liveHtml = await live.text();
    // A paused live task: its buttons, no banner.
    expect(liveHtml).toContain('data-control="resume"');
    expect(liveHtml).not.toContain('data-archived');
    await acme.post(`/v1/tasks/${id}/stop`);
    await archive(id);

    const response = await fetch(`${acme.baseUrl}/admin/tasks/${id}`, { headers: admin });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Dashboard survey');
    expect(html).toContain('data-archived');
    expect(html).not.toContain('data-control=');
    expect(html).toContain('Refunds are rare');
    expect(html).toContain('Two of three steps done.');
    const token = /vigil_admin_csrf=([A-Za-z0-9_-]{43})/.exec(response.headers.get('set-cookie') ?? '')![1];
    const forged = await fetch(`${acme.baseUrl}/admin/tasks/${id}/resume`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...admin, cookie: `vigil_admin_csrf=${token}`, 'x-csrf-token': token },
    });
    expect(forged.status).toBe(409);
    expect(await forged.json()).toMatchObject({ statusCode: 409, currentStatus: 'cancelled' });
  });

  it('documents ?archived=true and the 502 of an unreadable archive in the OpenAPI document', async () => {
    const docs = (await acme.withKey(undefined).get('/docs-json')).body;
    const list = docs.paths['/v1/tasks'].get;
    expect(list.parameters).toContainEqual(
      expect.objectContaining({
        name: 'archived',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'boolean' }),
      }),
    );
    for (const path of ['/v1/tasks', '/v1/tasks/{id}', '/v1/tasks/{id}/actions', '/v1/tasks/{id}/artifacts'])
      expect(docs.paths[path].get.responses['502']).toBeDefined();
    expect(docs.paths['/v1/tasks/{id}/resume'].post.responses['502']).toBeDefined();
  });

  it('lists archived tasks with ?archived=true, cursor-paged in id order, per tenant', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await ranTask(globex, 'globex', `archived ${i}`);
      await globex.post(`/v1/tasks/${id}/stop`);
      await archive(id);
      ids.push(id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await globex.get(`/v1/tasks?archived=true&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      for (const task of page.body.data)
        expect(task).toMatchObject({ tenantId: 'globex', archived: true, status: 'cancelled' });
      seen.push(...page.body.data.map((task: { id: string }) => task.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].sort());
    // The view in the list is the view of the task.
    const one = await globex.get(`/v1/tasks/${ids[0]}`);
    expect((await globex.get(`/v1/tasks?archived=true&limit=100`)).body.data).toContainEqual(one.body);
    // Live listing and archived listing do not mix; acme's archives are not globex's.
    expect((await globex.get('/v1/tasks?limit=100')).body.data).toEqual([]);
    const acmeArchived = (await acme.get('/v1/tasks?archived=true&limit=100')).body.data.map(
      (task: { id: string }) => task.id,
    );
    expect(acmeArchived.some((id: string) => ids.includes(id))).toBe(false);
    expect((await globex.get('/v1/tasks?archived=true&cursor=../acme/x')).status).toBe(400);
    expect((await globex.get('/v1/tasks?archived=maybe')).status).toBe(400);
    expect((await globex.get('/v1/tasks?archived=true&status=completed')).status).toBe(400);
  });

  it('answers a repeated Idempotency-Key from the archive, never creating the task again', async () => {
    const body = { kind: 'noop', input: { steps: 3 }, title: 'once only' };
    const first = await initech.post('/v1/tasks', body, { 'idempotency-key': 'nightly-2026-12-02' });
    expect(first.status).toBe(201);
    await api.app.get(TaskLifecycle).stop({ id: first.body.id, tenantId: 'initech' });
    await archive(first.body.id);

    const again = await initech.post('/v1/tasks', body, { 'idempotency-key': 'nightly-2026-12-02' });
    // A replay answers as any replay does: 201 with Idempotent-Replayed.
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).toEqual([
      201,
      'true',
      first.body.id,
    ]);
    expect([again.body.status, again.body.archived]).toEqual(['cancelled', true]);
    expect(await ctx.redis.exists(ctx.keys.task(first.body.id))).toBe(0);
    const changed = await initech.post(
      '/v1/tasks',
      { ...body, title: 'another' },
      { 'idempotency-key': 'nightly-2026-12-02' },
    );
    expect(changed.status).toBe(422);
  });
});
