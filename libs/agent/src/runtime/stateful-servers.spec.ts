import type { KindTool } from '@vigil/kinds';
import type { ActionRecord, RetryEntry } from '@vigil/tasks';
import { REOPEN_PREFIX, reopenCalls, StatefulServers, type SliceSituation } from './stateful-servers';

const NAVIGATE = 'browser__browser_navigate';
const CLICK = 'browser__browser_click';
const URL_A = 'http://127.0.0.1:9/pricing.html';

/** A browser tool whose server session is whatever `now.session` says. */
function tools(now: { session: string | null }): KindTool[] {
  const statefulServer = { name: 'browser', session: () => now.session };
  const tool = (name: string): KindTool =>
    ({ name, description: '', parameters: {}, effect: 'read', statefulServer }) as unknown as KindTool;
  const plain = {
    name: 'files__read',
    description: '',
    parameters: {},
    effect: 'read',
  } as unknown as KindTool;
  return [tool(NAVIGATE), tool(CLICK), plain];
}

function action(
  step: number,
  tool: string,
  args: Record<string, unknown>,
  extra: Partial<ActionRecord> = {},
): ActionRecord {
  return {
    step,
    attempt: 1,
    slice: 0,
    tool,
    key: null,
    args,
    result: {},
    startedAt: 0,
    durationMs: 1,
    codeVersion: 'v1',
    ...extra,
  };
}

async function* newestFirst(actions: ActionRecord[]): AsyncGenerator<ActionRecord> {
  for (let i = actions.length - 1; i >= 0; i--) yield actions[i];
}

const crashed: RetryEntry = {
  attempt: 1,
  model: 'opus',
  provider: 'scripted',
  result: 'failed',
  reason: 'crashed',
  costUsd: 0,
  at: 0,
};

function situation(
  overrides: Partial<SliceSituation['task']> = {},
  workerId = 'w-1',
  codeVersion = 'v1',
): SliceSituation {
  return { task: { attempt: 1, workerId: 'w-1', retryHistory: [], ...overrides }, workerId, codeVersion };
}

/** The log of a walkthrough: pricing opened in session s-1, then a click in it, then an unrelated read. */
const log = [
  action(1, NAVIGATE, { url: 'http://127.0.0.1:9/' }, { serverSession: 's-1' }),
  action(2, NAVIGATE, { url: URL_A }, { serverSession: 's-1' }),
  action(3, CLICK, { element: 'Buy', ref: 'e7' }, { serverSession: 's-1' }),
  action(4, 'files__read', { path: 'x' }),
];

describe('stateful tool servers (docs/missions.md, "Stateful tool servers")', () => {
  it('says nothing for a task without a stateful server, or one that never used it', async () => {
    expect(new StatefulServers([tools({ session: 's-1' })[2]]).any).toBe(false);
    const servers = new StatefulServers(tools({ session: 's-2' }));
    await servers.readLastUse(newestFirst([action(1, 'files__read', { path: 'x' })]));
    expect(servers.open(situation())).toBe('');
  });

  it('says nothing when this Worker still holds the session the task last used', async () => {
    const servers = new StatefulServers(tools({ session: 's-1' }));
    await servers.readLastUse(newestFirst(log));
    expect(servers.open(situation())).toBe('');
    expect(servers.openingNotice).toBe('');
  });

  it('after a crash, says the server restarted, that what it held is gone, and where it last was', async () => {
    const servers = new StatefulServers(tools({ session: 's-2' }));
    await servers.readLastUse(newestFirst(log));
    const notice = servers.open(situation({ attempt: 2, retryHistory: [crashed], workerId: 'w-1' }, 'w-2'));
    expect(notice).toContain('## Tool servers restarted');
    expect(notice).toContain('The "browser" tool server was restarted since this task last used it');
    expect(notice).toContain('attempt 1 ended: crashed, and this is attempt 2');
    expect(notice).toContain('open pages, logins');
    expect(notice).toContain(`Its last known location: ${URL_A} (step #2, ${NAVIGATE})`);
    expect(reopenCalls(notice)).toEqual([{ name: NAVIGATE, args: { url: URL_A } }]);
  });

  it('names a move to another Worker, a deploy, and a restart of the server process', async () => {
    const reasons: string[] = [];
    for (const [worker, code] of [
      ['w-2', 'v1'],
      ['w-2', 'v2'],
      ['w-1', 'v1'],
    ]) {
      const servers = new StatefulServers(tools({ session: null }));
      await servers.readLastUse(newestFirst(log));
      reasons.push(servers.open(situation({}, worker, code)));
    }
    expect(reasons[0]).toContain('(the task moved to another Worker)');
    expect(reasons[1]).toContain('(the task moved to another Worker, running code v2 (a deploy))');
    expect(reasons[2]).toContain('(the server process restarted)');
  });

  it('offers only the url when the last location call had long arguments', async () => {
    const servers = new StatefulServers(tools({ session: 's-2' }));
    await servers.readLastUse(
      newestFirst([action(1, NAVIGATE, { url: URL_A, note: 'x'.repeat(600) }, { serverSession: 's-1' })]),
    );
    expect(reopenCalls(servers.open(situation()))).toEqual([{ name: NAVIGATE, args: { url: URL_A } }]);
  });

  it('without a known location, still says the state is gone', async () => {
    const servers = new StatefulServers(tools({ session: 's-2' }));
    await servers.readLastUse(newestFirst([action(1, CLICK, { ref: 'e1' }, { serverSession: 's-1' })]));
    const notice = servers.open(situation());
    expect(notice).toContain('Establish what you need again');
    expect(reopenCalls(notice)).toEqual([]);
  });

  it('ignores failed calls: a call that never reached the server holds nothing', async () => {
    const servers = new StatefulServers(tools({ session: 's-1' }));
    await servers.readLastUse(
      newestFirst([
        ...log,
        action(5, NAVIGATE, { url: 'http://x/' }, { error: 'closed', serverSession: undefined }),
      ]),
    );
    expect(servers.open(situation())).toBe('');
  });

  it('within a slice, puts the notice before the first result from a new session, once', async () => {
    const now = { session: 's-1' as string | null };
    const servers = new StatefulServers(tools(now));
    await servers.readLastUse(newestFirst(log));
    expect(servers.open(situation())).toBe('');
    const ok = (serverSession: string) => ({ key: null, ok: true, result: {}, serverSession });
    expect(servers.afterCall(NAVIGATE, { url: 'http://127.0.0.1:9/b.html' }, ok('s-1'))).toBeUndefined();
    const notice = servers.afterCall(CLICK, { ref: 'e2' }, ok('s-9'));
    expect(notice).toContain('was restarted before this call (the server process restarted)');
    expect(reopenCalls(notice!)).toEqual([{ name: NAVIGATE, args: { url: 'http://127.0.0.1:9/b.html' } }]);
    expect(servers.afterCall(CLICK, { ref: 'e3' }, ok('s-9'))).toBeUndefined();
    expect(servers.afterCall('files__read', { path: 'y' }, { key: null, ok: true })).toBeUndefined();
  });

  it('after the opening told of a restart, takes the first call as the new session without a second notice', async () => {
    const servers = new StatefulServers(tools({ session: null }));
    await servers.readLastUse(newestFirst(log));
    expect(servers.open(situation())).not.toBe('');
    const ok = { key: null, ok: true, result: {}, serverSession: 's-5' };
    expect(servers.afterCall(NAVIGATE, { url: URL_A }, ok)).toBeUndefined();
    expect(servers.afterCall(NAVIGATE, { url: URL_A }, ok)).toBeUndefined();
  });

  it('reads only lines it wrote when asked for the calls to reopen', () => {
    expect(reopenCalls(`${REOPEN_PREFIX}tool not-json\n${REOPEN_PREFIX}nospace\nother`)).toEqual([]);
    expect(reopenCalls(`${REOPEN_PREFIX}t [1]`)).toEqual([]);
  });
});
