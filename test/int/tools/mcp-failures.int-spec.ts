import { rmSync } from 'node:fs';
import { type CatalogToolGateway, ToolCallError, ToolServerUnavailableError } from '@vigil/tools';
import { FAKE_SERVER, npmServer, tempDir, testGateway } from '@vigil/testing';

/**
 * What goes wrong with real child processes (docs/missions.md, "Tools from outside"): a server
 * killed mid-call, a tools/list that never answers, a call past its deadline, a stop — each a
 * ToolCallError within its bound, never a hang; a dead server comes back on the next use.
 */
describe('MCP servers that fail', () => {
  const dir = tempDir();
  let gateway: CatalogToolGateway;

  beforeAll(() => {
    gateway = testGateway(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [npmServer('server-everything'), 'stdio'] },
          quick: {
            command: process.execPath,
            args: [npmServer('server-everything'), 'stdio'],
            timeoutMs: 1_500,
          },
          silent: { command: process.execPath, args: [FAKE_SERVER, 'silent-list'], timeoutMs: 500 },
          changing: { command: process.execPath, args: [FAKE_SERVER, 'changing'] },
          missing: { command: `${dir}/no-such-binary` },
        },
        tenants: { acme: { allow: ['everything', 'quick', 'silent', 'changing', 'missing'] } },
      },
      { toolCallTimeoutMs: 20_000 },
    );
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function longCall(server: string, signal: AbortSignal, duration = 10) {
    const [tool] = await gateway.toolsFor('acme', [`${server}.trigger-long-running-operation`], signal);
    return tool.call({ duration, steps: duration * 5 }, { signal });
  }

  it('fails a call at once when its server is SIGKILLed mid-call, and restarts the server on the next use', async () => {
    const signal = new AbortController().signal;
    const [echo] = await gateway.toolsFor('acme', ['everything.echo'], signal);
    await echo.call({ message: 'warm' }, { signal });
    const pid = gateway.connection('everything')!.pid!;
    const started = Date.now();
    const call = longCall('everything', signal);
    setTimeout(() => process.kill(pid, 'SIGKILL'), 300);
    await expect(call).rejects.toBeInstanceOf(ToolCallError);
    await expect(call).rejects.toThrow(/^everything\.trigger-long-running-operation: .*closed/i);
    expect(Date.now() - started).toBeLessThan(2_000);

    const again = await echo.call({ message: 'back' }, { signal });
    expect(again.text).toBe('Echo: back');
    const restarted = gateway.connection('everything')!.pid;
    expect(restarted).toEqual(expect.any(Number));
    expect(restarted).not.toBe(pid);
  });

  it('ends a call that runs past its deadline with a ToolCallError saying so', async () => {
    // The 1.5 s deadline covers the server's start and tools/list too, which a loaded machine can
    // overrun: the listing is retried until it succeeds, then only the call itself is timed.
    const signal = new AbortController().signal;
    let tool: Awaited<ReturnType<typeof gateway.toolsFor>>[number] | undefined;
    for (let tries = 0; !tool && tries < 20; tries++)
      tool = (
        await gateway.toolsFor('acme', ['quick.trigger-long-running-operation'], signal).catch(() => [])
      )[0];
    expect(tool).toBeDefined();
    const started = Date.now();
    const call = tool!.call({ duration: 10, steps: 50 }, { signal });
    await expect(call).rejects.toThrow(
      new ToolCallError('quick.trigger-long-running-operation: no answer within 1500 ms'),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('aborts a call at once when the caller aborts (a stop)', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = longCall('everything', controller.signal);
    setTimeout(() => controller.abort(new Error('task stopped')), 200);
    await expect(call).rejects.toThrow(
      new ToolCallError('everything.trigger-long-running-operation: aborted'),
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('gives a tools/list that never answers up after the deadline: the server is unavailable', async () => {
    const signal = new AbortController().signal;
    const started = Date.now();
    const listing = gateway.validate('acme', ['silent.anything'], signal);
    await expect(listing).rejects.toBeInstanceOf(ToolServerUnavailableError);
    await expect(listing).rejects.toThrow(
      'MCP server "silent" is unavailable: MCP server "silent" did not list its tools: no answer within 500 ms',
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    // The server is alive, only silent: a second try waits its own deadline again, no longer.
    const again = Date.now();
    await expect(gateway.toolsFor('acme', ['silent'], signal)).rejects.toBeInstanceOf(
      ToolServerUnavailableError,
    );
    expect(Date.now() - again).toBeLessThan(1_500);
  });

  it('validates a bare server name from the catalog alone, starting nothing', async () => {
    const started = Date.now();
    await expect(
      gateway.validate('acme', ['missing', 'silent'], new AbortController().signal),
    ).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(100);
    expect(gateway.connection('missing')!.pid).toBeNull();
  });

  it('says why a server that cannot start is unavailable', async () => {
    await expect(gateway.toolsFor('acme', ['missing'], new AbortController().signal)).rejects.toThrow(
      /^MCP server "missing" is unavailable: .*ENOENT/,
    );
  });

  it('lists a server again when it says notifications/tools/list_changed', async () => {
    const signal = new AbortController().signal;
    const before = await gateway.toolsFor('acme', ['changing'], signal);
    expect(before.map((tool) => tool.catalogName)).toEqual(['changing.add_tool']);
    await before[0].call({ name: 'fresh_tool' }, { signal });
    let names: string[] = [];
    for (let i = 0; i < 50 && !names.includes('changing.fresh_tool'); i++) {
      names = (await gateway.toolsFor('acme', ['changing'], signal)).map((tool) => tool.catalogName);
      if (!names.includes('changing.fresh_tool')) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(names).toEqual(['changing.add_tool', 'changing.fresh_tool']);
    const [fresh] = await gateway.toolsFor('acme', ['changing.fresh_tool'], signal);
    expect(fresh.effect).toBe('read');
  });

  it('stops the child processes it spawned on close', async () => {
    const own = testGateway({
      mcpServers: {
        everything: { command: process.execPath, args: [npmServer('server-everything'), 'stdio'] },
      },
      tenants: { acme: { allow: ['everything'] } },
    });
    await own.toolsFor('acme', ['everything'], new AbortController().signal);
    const pid = own.connection('everything')!.pid!;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await own.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await expect(own.toolsFor('acme', ['everything'], new AbortController().signal)).rejects.toThrow(
      /the tool gateway is closed/,
    );
  });
});
