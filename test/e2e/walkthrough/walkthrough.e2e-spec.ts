import { createHash } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ActionRecord, ArtifactEntry } from '@vigil/tasks';
import { AppProcess, RedisTestContext, VigilStack } from '@vigil/testing';
import {
  CRASH_AT_STEP,
  DEFECT_TITLE,
  SCREENSHOTS,
  walkthroughCatalog,
  walkthroughCriteria,
  walkthroughPlan,
} from '../../../examples/walkthrough-app/scenario';
import { startWalkthroughApp, type WalkthroughApp } from '../../../examples/walkthrough-app/server';
import { requireChromium } from '../../support/chromium';

const ROOT = resolve(__dirname, '../../..');
const KEY = 'walk-key-0001';
const BASE = 'https://vigil.walkthrough.test';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The browser walkthrough end to end (docs/missions.md, "A browser walkthrough"): the built apps
 * as processes, the real `@playwright/mcp` from npm driving Debian's chromium, spawned by the
 * Worker, against examples/walkthrough-app. The Worker is SIGKILLed before the sign-up form's
 * screenshot; the next Worker's opening says the browser restarted and where it was, and the
 * scripted agent, following it, reopens the page — without that the element screenshot would fail
 * on a blank page. The mission ends verified; every screenshot is listed once and downloads with
 * the bytes its id hashes; the report and the completed message link the findings' screenshots.
 */
describe('a browser walkthrough with a Worker crash', () => {
  const ctx = new RedisTestContext('walkthrough');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-walk-e2e-')));
  let app: WalkthroughApp;
  let stack: VigilStack;
  let worker: AppProcess;

  beforeAll(async () => {
    requireChromium();
    app = await startWalkthroughApp();
    const catalog = join(dir, 'vigil.tools.json');
    writeFileSync(
      catalog,
      JSON.stringify(walkthroughCatalog({ root: ROOT, outputDir: dir, tenant: 'walk' })),
    );
    stack = new VigilStack(ctx, {
      API_KEYS: `walk:${KEY}`,
      VIGIL_TOOLS: catalog,
      OBJECT_STORE_URL: `file://${join(dir, 'objects')}`,
      PUBLIC_BASE_URL: BASE,
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
    });
    await Promise.all([stack.start('api'), stack.start('watcher'), stack.start('notifier')]);
    worker = await stack.start('worker');
  }, 60_000);
  afterAll(async () => {
    await stack?.stopAll();
    await app?.close();
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => (await stack.api!.withKey(KEY).get(path)).body;
  const download = async (path: string) => {
    const response = await fetch(`${stack.api!.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it('completes verified, says the browser restarted after the crash, and keeps every screenshot once', async () => {
    const created = await stack.api!.withKey(KEY).post('/v1/tasks', {
      kind: 'mission',
      title: 'Walk through the web app',
      input: { goal: `Walk through ${app.url} and report on it`, tools: ['browser'] },
      exitCriteria: walkthroughCriteria(),
      agent: { scripted: { plan: walkthroughPlan(app.url), crashAtStep: CRASH_AT_STEP } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // The scripted agent SIGKILLs its Worker just before call 9; an orchestrator starts another.
    const exit = await worker.exited();
    expect(exit.signal).toBe('SIGKILL');
    worker = await stack.start('worker');
    const done = await stack.waitForTask(
      id,
      (task) => ['completed', 'failed', 'cancelled', 'waiting_on_human'].includes(task.status),
      90_000,
      'the end of the walkthrough',
    );
    expect({ status: done.status, passed: done.verification?.passed }).toEqual({
      status: 'completed',
      passed: true,
    });
    expect(done.retryHistory.map((entry) => entry.reason)).toEqual(['crashed']);

    // The next Worker's opening said the browser restarted: the agent reopened where it was first.
    await worker.waitFor(/the opening says a stateful tool server restarted/);
    const actions: ActionRecord[] = (await get(`/v1/tasks/${id}/actions?limit=100`)).data;
    const before = actions.filter((action) => action.attempt === 1);
    const after = actions.filter((action) => action.attempt === 2);
    expect(after[0]).toMatchObject({
      tool: 'browser__browser_navigate',
      args: { url: `${app.url}/signup.html?plan=team` },
    });
    expect(after[0].deduplicated).toBeUndefined();
    expect(after[0].serverSession).toEqual(expect.any(String));
    expect(after[0].serverSession).not.toBe(before.at(-1)!.serverSession);
    // The form's screenshot after it found the form, which a blank page would not have had.
    expect(after[1]).toMatchObject({ tool: 'browser__browser_take_screenshot', args: { target: 'form' } });
    expect(after[1].error).toBeUndefined();
    expect(actions.every((action) => action.error === undefined)).toBe(true);
    expect(app.served()['/signup']).toBe(1);

    // Every screenshot listed once, under the step that took it; none lost, none twice.
    const listed: ArtifactEntry[] = (await get(`/v1/tasks/${id}/artifacts`)).data;
    const shots = actions.filter((action) => action.tool === 'browser__browser_take_screenshot');
    expect(shots).toHaveLength(SCREENSHOTS);
    expect(listed.map((entry) => entry.step)).toEqual(shots.map((action) => action.step));
    expect(new Set(listed.map((entry) => entry.id)).size).toBe(SCREENSHOTS);
    for (const shot of shots)
      expect(JSON.stringify(shot.result)).toContain(listed.find((e) => e.step === shot.step)!.id);
    for (const entry of listed) {
      expect(entry).toMatchObject({ tool: 'browser.browser_take_screenshot', mimeType: 'image/png' });
      const { response, bytes } = await download(`/v1/tasks/${id}/artifacts/${entry.id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.id);
      expect(bytes.subarray(0, 8).equals(PNG)).toBe(true);
      expect(bytes.length).toBe(entry.bytes);
    }

    // The findings cite the screenshots; the report and the completed message link them.
    const findings = (await get(`/v1/tasks/${id}/findings`)).data as {
      title: string;
      artifacts?: string[];
    }[];
    expect(findings.map((finding) => finding.title)).toEqual([DEFECT_TITLE, expect.any(String)]);
    const cited = findings.flatMap((finding) => finding.artifacts ?? []);
    expect(new Set(cited)).toEqual(new Set(listed.map((entry) => entry.id)));
    const links = cited.map((artifact) => `${BASE}/v1/tasks/${id}/artifacts/${artifact}`);
    const report = (await download(`/v1/tasks/${id}/report`)).bytes.toString('utf8');
    for (const link of links) expect(report).toContain(link);
    const completed = await waitForCompletedMessage(id);
    for (const link of links) expect(completed).toContain(link);
  }, 150_000);

  async function waitForCompletedMessage(id: string): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const messages = (await get(`/v1/tasks/${id}/messages?limit=100`)).data as {
        kind: string;
        text: string;
      }[];
      const completed = messages.find((message) => message.kind === 'completed');
      if (completed) return completed.text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`task ${id}: no completed message`);
  }
});
