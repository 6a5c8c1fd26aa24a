import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { HttpClient, RedisTestContext, VigilStack } from '@vigil/testing';
import { launchChromium, requireChromium } from '../../support/chromium';

const ARTIFACTS = join(__dirname, '../../../test-artifacts');
const PASSWORD = 'browser-admin-pw-1';

// What the functions run inside the page see (this project compiles without the DOM library).
declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const window: object;

const text = (page: Page, selector: string) => page.locator(selector).first().innerText();

/**
 * The dashboard in a real browser (docs/operations.md, "The task dashboard"): headless
 * Chromium logs in with basic auth, watches a running noop task's step advance without a reload,
 * presses stop and sees the task cancelled; the task page's screenshot is kept in test-artifacts/.
 */
describe('the task dashboard in a browser', () => {
  const ctx = new RedisTestContext('browser', { API_KEYS: 'web:web-key-000001' });
  const stack = new VigilStack(ctx, { API_KEYS: 'web:web-key-000001', ADMIN_PASSWORD: PASSWORD });
  let api: HttpClient;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    requireChromium();
    const process = await stack.start('api');
    await stack.start('worker');
    await stack.start('watcher');
    base = `http://127.0.0.1:${process.port}`;
    api = new HttpClient(base, 'web-key-000001');
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx.close();
  });

  it('is refused without credentials and with wrong ones', async () => {
    for (const httpCredentials of [undefined, { username: 'admin', password: 'wrong-password' }]) {
      const context = await browser.newContext({ httpCredentials });
      try {
        // Without credentials headless Chromium gives up on the Basic challenge; with wrong ones
        // it shows the 401. Either way no dashboard.
        const page = await context.newPage();
        const outcome = await page.goto(`${base}/admin/tasks`).then(
          (response) => String(response?.status()),
          (error: Error) => error.message,
        );
        expect(outcome).toMatch(/^401$|ERR_INVALID_AUTH_CREDENTIALS/);
        expect(await page.locator('#live-root').count()).toBe(0);
        expect((await context.request.get(`${base}/admin/tasks`)).status()).toBe(401);
      } finally {
        await context.close();
      }
    }
  });

  it('follows a running task live, stops it with the button and shows it cancelled', async () => {
    const created = await api.post('/v1/tasks', {
      kind: 'noop',
      title: 'browser watched',
      input: { steps: 80, stepMs: 250 },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const context = await browser.newContext({ httpCredentials: { username: 'admin', password: PASSWORD } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => violations.push(String(error)));
    try {
      // The list: the row is there and its step advances live.
      await page.goto(`${base}/admin/tasks`);
      await page.locator('#live-state', { hasText: 'live' }).waitFor();
      const row = `#task-${id}`;
      await page.locator(`${row} [data-field="currentStep"]`).waitFor();
      await page.evaluate(() => Object.assign(window, { notReloaded: true }));
      await page.waitForFunction(
        (selector) => /step:\d+$/.test(document.querySelector(selector)?.textContent ?? ''),
        `${row} [data-field="currentStep"]`,
        { timeout: 20_000 },
      );
      const listStep = await text(page, `${row} [data-field="currentStep"]`);
      await page.waitForFunction(
        ([selector, before]) => (document.querySelector(selector)?.textContent ?? before) !== before,
        [`${row} [data-field="currentStep"]`, listStep] as const,
      );
      expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true);

      // The task page: the step advances without a reload.
      await page.click(`${row} a`);
      await page.waitForURL(`${base}/admin/tasks/${id}`);
      await page.locator('#live-state', { hasText: 'live' }).waitFor();
      await page.evaluate(() => Object.assign(window, { notReloaded: true }));
      const before = await text(page, '[data-field="currentStep"]');
      await page.waitForFunction(
        (step) => (document.querySelector('[data-field="currentStep"]')?.textContent ?? step) !== step,
        before,
      );
      const after = await text(page, '[data-field="currentStep"]');
      const stepIndex = (step: string) => Number(/step:(\d+)$/.exec(step)?.[1] ?? -1);
      expect(stepIndex(after)).toBeGreaterThan(stepIndex(before));
      expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(await text(page, '[data-field="status"]')).toBe('running');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-task.png'), fullPage: true });

      // Stop: the form posts with the session's CSRF token and the page shows the result.
      await page.click('button[data-control="stop"]');
      await page.locator('[data-field="status"]', { hasText: 'cancelled' }).waitFor();
      expect(await page.locator('button[data-control="stop"]').count()).toBe(0);
      expect((await api.get(`/v1/tasks/${id}`)).body.status).toBe('cancelled');
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-task-cancelled.png'), fullPage: true });
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
