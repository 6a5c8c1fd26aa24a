import { createHash } from 'node:crypto';
import { loadConfig } from '@vigil/config';
import { kindServices, ToolOutput, type ToolContext } from '@vigil/kinds';
import { missionKind } from './mission.kind';
import type { MissionInput } from './mission.input';
import { FakeToolGateway } from '@vigil/testing';

const gateway = new FakeToolGateway([
  {
    catalogName: 'files.write_file',
    effect: 'write',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    timeoutMs: 5000,
    handle: (_args, options) => {
      options.onProgress?.();
      return { text: 'wrote it', raw: { content: [{ type: 'text', text: 'wrote it' }] } };
    },
  },
  { catalogName: 'files.read_file', effect: 'read', handle: () => ({ text: 'x', raw: { content: [] } }) },
  { catalogName: 'memory.set', effect: 'write', idempotent: true, handle: () => ({ text: 'ok', raw: {} }) },
  {
    catalogName: 'crm.create_lead',
    effect: 'write',
    handle: () => ({ text: 'ok', raw: {} }),
    lookup: () => ({ id: 'lead_1' }),
  },
]);
const input: MissionInput = { goal: 'g', tools: ['files', 'memory', 'crm'] };

describe("a mission's tools", () => {
  it('are the catalog tools it names, as models see them, writes carrying the key of their logical step', async () => {
    const services = kindServices(loadConfig({}), gateway);
    const tools = await missionKind.toolsFor!({ id: 'tsk_1', tenantId: 'acme', input }, services);
    expect(
      tools.map((tool) => [
        tool.name,
        tool.taskName,
        tool.effect,
        tool.repeatableWrite ?? false,
        Boolean(tool.reconcile),
      ]),
    ).toEqual([
      ['files__write_file', 'files.write_file', 'write', false, false],
      ['files__read_file', 'files.read_file', 'read', false, false],
      ['memory__set', 'memory.set', 'write', true, false],
      ['crm__create_lead', 'crm.create_lead', 'write', false, true],
    ]);
    const [write, read, , lead] = tools;
    expect(write).toMatchObject({
      timeoutMs: 5000,
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    });
    let progress = 0;
    const context: ToolContext<MissionInput> = {
      taskId: 'tsk_1',
      attempt: 1,
      input,
      outputs: new Map(),
      signal: new AbortController().signal,
      services,
      onProgress: () => progress++,
    };
    const args = { path: '/srv/a' };
    const output = await write.execute(args, context);
    expect(output).toEqual(new ToolOutput({ content: [{ type: 'text', text: 'wrote it' }] }, 'wrote it'));
    expect(progress).toBe(1);
    const key = createHash('sha256')
      .update(`tsk_1\n${write.stepKey(args, input)}`)
      .digest('hex')
      .slice(0, 32);
    expect(gateway.callsOf('files.write_file')).toEqual([
      { tool: 'files.write_file', args, idempotencyKey: key },
    ]);
    await read.execute({ path: '/srv/a' }, context);
    expect(gateway.callsOf('files.read_file')[0].idempotencyKey).toBeUndefined();
    expect(await lead.reconcile!({ name: 'x' }, context)).toEqual({ id: 'lead_1' });
  });
});
