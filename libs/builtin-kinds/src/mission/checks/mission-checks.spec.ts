import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@vigil/config';
import type { ExitCriterion, Finding } from '@vigil/tasks';
import { CheckUnavailableError, kindServices, type CheckContext } from '@vigil/kinds';
import type { MissionInput } from '../mission.input';
import { FakeToolGateway, toolFailure } from '@vigil/testing';
import { MISSION_CHECKS } from '.';
import { valueAt } from './json-pointer';

let graph: unknown = {
  content: [{ type: 'text', text: '{"entities":[]}' }],
  structuredContent: { entities: ['a', 'b'] },
};
const gateway = new FakeToolGateway([
  {
    catalogName: 'memory.read_graph',
    effect: 'read',
    handle: () => {
      if (graph === 'down') throw toolFailure('server exited');
      return { text: 'graph', raw: graph };
    },
  },
  { catalogName: 'memory.create_entities', effect: 'write', handle: () => ({ text: '', raw: {} }) },
]);
const finding = (title: string): Finding => ({ title, body: 'b', attempt: 1, at: 0 });
const context = (findings: Finding[] = [], env: Record<string, string> = {}): CheckContext<MissionInput> => ({
  taskId: 'tsk_1',
  tenantId: 'acme',
  input: { goal: 'g', tools: ['memory'] },
  findings,
  actions: [],
  doneSteps: new Set(),
  outputs: new Map(),
  signal: AbortSignal.timeout(5000),
  services: kindServices(loadConfig({ TOOLS_ALLOW_PRIVATE: 'true', ...env }), gateway),
});
const run = (criterion: ExitCriterion, ctx = context()) => MISSION_CHECKS[criterion.check](criterion, ctx);

describe('mission exit checks', () => {
  it('findings_count counts the recorded findings, by title pattern when given', async () => {
    const recorded = [finding('Competitor: Acme'), finding('Competitor: Globex'), finding('Summary')];
    expect(await run({ check: 'findings_count', expected: 3 }, context(recorded))).toMatchObject({
      passed: true,
      actual: 3,
    });
    expect(
      await run(
        { check: 'findings_count', expected: 3, args: { titleMatches: '^Competitor' } },
        context(recorded),
      ),
    ).toMatchObject({
      passed: false,
      actual: 2,
      detail: '2 findings with a title matching /^Competitor/ recorded, 3 needed',
    });
  });

  it('tool_result calls the read tool and compares the value at the pointer of its raw result', async () => {
    const criterion = {
      check: 'tool_result',
      args: { tool: 'memory.read_graph', arguments: {}, pointer: '/structuredContent/entities' },
      expected: ['a', 'b'],
    };
    expect(await run(criterion)).toMatchObject({ passed: true, actual: ['a', 'b'] });
    graph = { structuredContent: { entities: ['a'] } };
    expect(await run(criterion)).toMatchObject({ passed: false, actual: ['a'] });
    graph = {};
    expect(await run(criterion)).toMatchObject({
      passed: false,
      detail: `memory.read_graph's result has nothing at "/structuredContent/entities"`,
    });
    graph = 'down';
    expect(await run(criterion)).toMatchObject({ passed: false, detail: 'memory.read_graph: server exited' });
    // Never a write, even if one slipped past creation.
    const write = { ...criterion, args: { ...criterion.args, tool: 'memory.create_entities' } };
    expect(await run(write)).toMatchObject({ passed: false, detail: expect.stringContaining('is a write') });
    expect(gateway.callsOf('memory.create_entities')).toHaveLength(0);
  });

  describe('http_json', () => {
    let server: Server;
    let base: string;
    let status = 200;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(status === 200 ? JSON.stringify({ data: [{ id: 't1', state: 'open' }] }) : '{}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('GETs the URL and compares the value at the pointer; a 5xx is unavailable, a private target refused', async () => {
      const criterion = {
        check: 'http_json',
        args: { url: `${base}/tickets`, pointer: '/data/0/state' },
        expected: 'open',
      };
      expect(await run(criterion)).toMatchObject({ passed: true, actual: 'open' });
      expect(await run({ ...criterion, expected: 'closed' })).toMatchObject({
        passed: false,
        actual: 'open',
      });
      status = 503;
      await expect(run(criterion)).rejects.toThrow(CheckUnavailableError);
      status = 404;
      expect(await run(criterion)).toMatchObject({
        passed: false,
        detail: expect.stringContaining('answered 404'),
      });
      status = 200;
      expect(await run(criterion, context([], { TOOLS_ALLOW_PRIVATE: 'false' }))).toMatchObject({
        passed: false,
        detail: expect.stringContaining('private or loopback'),
      });
    });
  });

  it('children_completed passes only when the task has children and every one ended completed', async () => {
    const criterion = { check: 'children_completed', expected: true };
    const withChildren = (...statuses: string[]) => ({
      ...context(),
      children: statuses.map((status, i) => ({ id: `tsk_c${i}`, title: `c${i}`, status })),
    });
    expect(await run(criterion, withChildren())).toMatchObject({
      passed: false,
      detail: 'the task started no children',
    });
    expect(await run(criterion, withChildren('completed', 'completed'))).toMatchObject({
      passed: true,
      actual: true,
    });
    expect(await run(criterion, withChildren('completed', 'failed', 'cancelled'))).toMatchObject({
      passed: false,
      detail: '2 of 3 children not completed: tsk_c1 (failed), tsk_c2 (cancelled)',
    });
  });

  it('artifact_exists counts distinct listed artifacts matching tool, type and name', async () => {
    const entry = (id: string, tool: string, mimeType: string, name?: string) => ({
      id: id.repeat(64),
      step: 1,
      tool,
      mimeType,
      bytes: 10,
      createdAt: '',
      ...(name ? { name } : {}),
    });
    const withArtifacts = {
      ...context(),
      artifacts: [
        entry('a', 'browser.take_screenshot', 'image/png', 'home.png'),
        entry('a', 'browser.take_screenshot', 'image/png', 'home.png'),
        entry('b', 'browser.take_screenshot', 'image/jpeg'),
        entry('c', 'fetch_report', 'application/pdf', 'report.pdf'),
      ],
    };
    const count = async (args: Record<string, string> | undefined, expected = 1) =>
      run({ check: 'artifact_exists', expected, ...(args ? { args } : {}) }, withArtifacts);
    expect(await count(undefined, 3)).toMatchObject({ passed: true, actual: 3 });
    expect(await count({ tool: 'browser__take_screenshot' }, 2)).toMatchObject({ passed: true, actual: 2 });
    expect(await count({ mimeType: 'image/*' }, 2)).toMatchObject({ passed: true, actual: 2 });
    expect(await count({ mimeType: 'image/png', nameContains: 'home' })).toMatchObject({ actual: 1 });
    expect(await count({ tool: 'browser.take_screenshot', mimeType: 'image/png' }, 2)).toMatchObject({
      passed: false,
      detail: '1 artifact with tool "browser.take_screenshot", mimeType "image/png" kept, 2 needed',
    });
    expect(await run({ check: 'artifact_exists', expected: 1 }, context())).toMatchObject({
      passed: false,
      actual: 0,
    });
    const check = MISSION_CHECKS.artifact_exists;
    expect(check.validateExpected(0, withArtifacts.input)).toEqual(['must be an integer ≥ 1']);
    expect(check.validateArgs({ tool: 'x', colour: 'red' }, withArtifacts.input)).toEqual([
      'args.colour is not an argument of artifact_exists (it takes tool, mimeType, nameContains)',
    ]);
  });

  it('reads JSON Pointers as RFC 6901 says, escapes included', () => {
    const doc = { 'a/b': { '~k': [10, 20] } };
    expect(valueAt(doc, '/a~1b/~0k/1')).toEqual({ found: true, value: 20 });
    expect(valueAt(doc, '/a~1b/~0k/2')).toEqual({ found: false });
    expect(valueAt(doc, '')).toEqual({ found: true, value: doc });
  });
});
