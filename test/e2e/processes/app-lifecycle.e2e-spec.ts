import { AppProcess, freePort, RedisTestContext } from '@vigil/testing';

/** Each app is its own process: it boots alone, says it is ready, and exits 0 on SIGTERM. */
describe('app processes', () => {
  const ctx = new RedisTestContext('lifecycle');
  afterAll(() => ctx.close());

  const apps = [
    ['api', 'PORT'],
    ['worker', 'WORKER_PORT'],
    ['watcher', 'WATCHER_PORT'],
    ['notifier', 'NOTIFIER_PORT'],
  ] as const;

  it.each(apps)('%s boots on its %s, answers /health, and exits 0 on SIGTERM', async (app, portVariable) => {
    const port = await freePort();
    const process = AppProcess.start(app, ctx.env({ [portVariable]: String(port) }));
    try {
      await process.waitFor(new RegExp(`vigil-${app} ready on port ${port}`));
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { info: { redis: { status: string } } }).info.redis.status).toBe('up');
      // Started without API_KEYS and WEBHOOK_SECRET: it says so, once, at boot.
      expect(process.text()).toMatch(/public development defaults for API_KEYS, WEBHOOK_SECRET/);
      const started = Date.now();
      process.signal('SIGTERM');
      const exit = await process.exited();
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await process.stop();
    }
  });

  it.each([
    [{ STALE_AFTER_MS: 'abc' }, /invalid configuration: STALE_AFTER_MS must be an integer, got "abc"/],
    [
      { HEARTBEAT_INTERVAL_MS: '60000', STALE_AFTER_MS: '30000' },
      /STALE_AFTER_MS \(30000\) must be larger than HEARTBEAT_INTERVAL_MS/,
    ],
  ])('stops at start on a bad config value (%j), naming the variable', async (env, message) => {
    const process = AppProcess.start('worker', ctx.env({ ...env, WORKER_PORT: '0' }));
    const exit = await process.exited();
    expect(exit.code).toBe(78);
    expect(process.text()).toMatch(message);
  });
});
