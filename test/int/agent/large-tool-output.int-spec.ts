import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileObjectStore, ObjectKeys } from '@vigil/object-store';
import type { ScriptedTurn } from '@vigil/tasks';
import { FakeToolGateway, newNoopTask, RedisTestContext, SliceRunnerHarness } from '@vigil/testing';

/** About a megabyte of JSON, not all alike. */
const megabyte = (label: string) => ({
  label,
  rows: Array.from({ length: 16_000 }, (_, i) => ({ i, line: `${label} row ${i} `.padEnd(48, '.') })),
});

/**
 * The claim check on the real runtime (docs/operations.md, "The object store"): a mission's tool
 * answers with a megabyte; what the step leaves in Redis stays small, and the file object store
 * holds the whole output by its hash.
 */
describe('tool outputs larger than MAX_INLINE_OUTPUT_BYTES', () => {
  const ctx = new RedisTestContext('large-tool-output', { SLICE_MAX_STEPS: '5', GLOBAL_SPEND_LIMIT_USD: '' });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks } = harness;
  const outputs = { read: megabyte('read'), write: megabyte('write') };
  const gateway = new FakeToolGateway([
    {
      catalogName: 'big.read_all',
      effect: 'read',
      handle: () => ({ text: JSON.stringify(outputs.read), raw: outputs.read }),
    },
    {
      catalogName: 'big.save_all',
      effect: 'write',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
      handle: () => ({ text: 'saved', raw: outputs.write }),
    },
  ]);
  let directory: string;
  let store: FileObjectStore;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'vigil-large-output-'));
    store = new FileObjectStore(directory);
  });
  afterAll(async () => {
    await ctx.close();
    await rm(directory, { recursive: true, force: true });
  });

  const runner = () => harness.runner(gateway, { workerId: 'large-output-worker', outputs: store });

  it('leaves under 8 KB in Redis for a 1 MB output, read or write, and stores the whole of it', async () => {
    const plan: ScriptedTurn[] = [
      { tool: 'big.read_all', args: {} },
      { tool: 'big.save_all', args: { name: 'everything' } },
      { tool: 'finish_task', args: { summary: 'read and saved' } },
    ];
    const id = 'tsk_large_output';
    await tasks.create(
      id,
      newNoopTask({
        kind: 'mission',
        title: 'large outputs',
        input: { goal: 'Read everything and save it', tools: ['big'] },
        exitCriteria: [{ check: 'findings_count', expected: 0 }],
        totalUnits: undefined,
        agent: { scripted: { plan } },
      }),
    );
    expect(await runner().run({ taskId: id, attempt: 1, slice: 1, reason: 'next_slice' })).toBe('verifying');

    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => ({
      raw,
      action: JSON.parse(raw) as { tool: string; key: string; result: { stored: Record<string, unknown> } },
    }));
    for (const [tool, output] of [
      ['big__read_all', outputs.read],
      ['big__save_all', outputs.write],
    ] as const) {
      const json = JSON.stringify(output);
      expect(json.length).toBeGreaterThan(1_000_000);
      const { raw, action } = actions.find((entry) => entry.action.tool === tool)!;
      const sha256 = createHash('sha256').update(json).digest('hex');
      expect(action.result).toEqual({
        stored: {
          id: sha256,
          bytes: json.length,
          mimeType: 'application/json',
          preview: json.slice(0, 2048),
        },
      });
      // Everything the step left in Redis: its action entry, its saved output, a write's journal entry.
      const saved = (await ctx.redis.hget(ctx.keys.outputs(id), action.key)) ?? '';
      const journalled = (await ctx.redis.hget(ctx.keys.journal(id), action.key)) ?? '';
      expect(JSON.parse(saved)).toEqual(action.result);
      expect(Buffer.byteLength(raw) + Buffer.byteLength(saved) + Buffer.byteLength(journalled)).toBeLessThan(
        8192,
      );
      // The object store holds the whole output, under the task's artifacts.
      expect((await store.get(ObjectKeys.artifact('acme', id, sha256)))!.toString()).toBe(json);
    }
    const journalEntry = JSON.parse((await ctx.redis.hvals(ctx.keys.journal(id)))[0]) as { result: unknown };
    expect(journalEntry.result).toMatchObject({ stored: { bytes: JSON.stringify(outputs.write).length } });
    expect((await store.list(ObjectKeys.artifactPrefix('acme', id), { limit: 10 })).keys).toHaveLength(2);
  });
});
