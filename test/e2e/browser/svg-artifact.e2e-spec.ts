import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ArtifactEntry } from '@vigil/tasks';
import { FAKE_SERVER, HttpClient, RedisTestContext, VigilStack } from '@vigil/testing';
import { launchChromium, requireChromium } from '../../support/chromium';

const PASSWORD = 'svg-admin-pw-1';
const KEY = 'svg-key-000001';

/**
 * A tool's output is untrusted (docs/api.md, "Artifacts"): a real MCP server answers an SVG whose
 * `<script>` and `onload` would call a beacon in this test and `alert()`. The mission keeps it as
 * an artifact and a finding cites it. In headless Chromium, neither the dashboard's task page (which
 * shows only raster images inline) nor either URL of the artifact (the dashboard's, behind its
 * login, and the API's, with the bearer key) ever runs it: no dialog, no beacon request.
 */
describe('an SVG artifact with a script, in a browser', () => {
  const ctx = new RedisTestContext('svg-artifact');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-svg-')));
  const beaconHits: string[] = [];
  let beacon: Server;
  let stack: VigilStack;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    requireChromium();
    beacon = createServer((request, response) => {
      beaconHits.push(request.url ?? '');
      response.writeHead(204, { 'access-control-allow-origin': '*' }).end();
    });
    await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
    const beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}/beacon`;
    const catalog = join(dir, 'vigil.tools.json');
    writeFileSync(
      catalog,
      JSON.stringify({
        mcpServers: { pictures: { command: process.execPath, args: [FAKE_SERVER, 'svg', beaconUrl] } },
        tenants: { web: { allow: ['pictures'] } },
      }),
    );
    stack = new VigilStack(ctx, {
      API_KEYS: `web:${KEY}`,
      ADMIN_PASSWORD: PASSWORD,
      VIGIL_TOOLS: catalog,
      OBJECT_STORE_URL: `file://${join(dir, 'objects')}`,
      HEARTBEAT_INTERVAL_MS: '200',
      WATCHER_INTERVAL_MS: '300',
    });
    const api = await stack.start('api');
    await stack.start('worker');
    await stack.start('watcher');
    base = `http://127.0.0.1:${api.port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stopAll();
    await new Promise((resolve) => beacon?.close(resolve));
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is never run by the task page, the dashboard route or the API route', async () => {
    const api = new HttpClient(base, KEY);
    const created = await api.post('/v1/tasks', {
      kind: 'mission',
      title: 'Draw a picture',
      input: { goal: 'Draw a picture and record it', tools: ['pictures'] },
      exitCriteria: [
        { check: 'findings_count', expected: 1 },
        { check: 'artifact_exists', args: { mimeType: 'image/svg+xml' }, expected: 1 },
      ],
      agent: {
        scripted: {
          plan: [
            { tool: 'pictures.draw', args: {} },
            {
              tool: 'record_finding',
              args: { title: 'A picture', body: 'drawn', artifacts: ['$artifacts:1'] },
            },
            { tool: 'finish_task', args: { summary: 'drawn' } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const done = await stack.waitForTask(id, (task) => ['completed', 'failed'].includes(task.status), 30_000);
    expect(done.status).toBe('completed');
    const [svg]: ArtifactEntry[] = (await api.get(`/v1/tasks/${id}/artifacts`)).body.data;
    expect(svg.mimeType).toBe('image/svg+xml');
    const adminUrl = `${base}/admin/tasks/${id}/artifacts/${svg.id}`;
    const apiUrl = `${base}/v1/tasks/${id}/artifacts/${svg.id}`;

    // Both routes: an attachment, sandboxed, never sniffed.
    const auth = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
    for (const [url, authorization] of [
      [adminUrl, auth],
      [apiUrl, `Bearer ${KEY}`],
    ]) {
      const response = await fetch(url, { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(response.headers.get('content-security-policy')).toBe(
        "sandbox; default-src 'none'; frame-ancestors 'none'",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }

    const dialogs: string[] = [];
    for (const [url, options] of [
      [`${base}/admin/tasks/${id}`, { httpCredentials: { username: 'admin', password: PASSWORD } }],
      [adminUrl, { httpCredentials: { username: 'admin', password: PASSWORD } }],
      [apiUrl, { extraHTTPHeaders: { authorization: `Bearer ${KEY}` } }],
    ] as const) {
      const context = await browser.newContext({ ...options, acceptDownloads: true });
      try {
        const page = await context.newPage();
        page.on('dialog', (dialog) => {
          dialogs.push(`${url}: ${dialog.message()}`);
          void dialog.dismiss();
        });
        // An attachment is a download, never a page: the navigation says so and renders nothing.
        const outcome = await page.goto(url).then(
          (response) => `status ${response?.status()}`,
          (error: Error) => error.message,
        );
        if (url === `${base}/admin/tasks/${id}`) {
          expect(outcome).toBe('status 200');
          // The task page links the SVG for download; no <img>, <object>, <embed> or <iframe> shows it.
          const link = page.locator(`a[data-artifact="${svg.id}"]`).first();
          expect(await link.getAttribute('download')).toBe('');
          expect(await page.locator(`img[src*="${svg.id}"]`).count()).toBe(0);
          expect(await page.locator('object, embed, iframe').count()).toBe(0);
        } else {
          expect(outcome).toMatch(/Download is starting|net::ERR_ABORTED/);
        }
        await page.waitForTimeout(500);
      } finally {
        await context.close();
      }
    }
    expect(dialogs).toEqual([]);
    expect(beaconHits).toEqual([]);
  }, 90_000);
});
