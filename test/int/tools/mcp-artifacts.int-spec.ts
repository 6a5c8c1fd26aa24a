import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { OutputClaimCheck, RecordedStepLedger, ToolExecutor } from '@vigil/agent';
import { missionTool } from '@vigil/builtin-kinds';
import { kindServices } from '@vigil/kinds';
import { FileObjectStore, ObjectKeys } from '@vigil/object-store';
import {
  ArtifactList,
  ArchivedTasks,
  ReadableTasks,
  StepRecorder,
  TaskRepository,
  WriteJournal,
  emptySliceContext,
  rasterTypeOf,
} from '@vigil/tasks';
import type { CatalogToolGateway } from '@vigil/tools';
import {
  RedisTestContext,
  TEST_CLAIM,
  newNoopTask,
  npmServer,
  redisLifecycle,
  tempDir,
  testGateway,
} from '@vigil/testing';

/**
 * Images from a real MCP server on npm (`server-everything`'s get-tiny-image, its blob resources)
 * through the tool gateway, the executor, the artifact keeper and record-step.lua into Redis
 * (docs/api.md, "Artifacts"): the bytes go to the object store by their SHA-256, the action log
 * and the saved outputs hold only the reference — no base64 in Redis, a step of under 2 KB — and
 * the task's artifact list names each artifact once per step.
 */
describe('MCP images become artifacts, never base64 in Redis', () => {
  const ctx = new RedisTestContext('mcp-artifacts');
  const dir = tempDir();
  const store = new FileObjectStore(dir);
  let gateway: CatalogToolGateway;
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  const executor = new ToolExecutor(new WriteJournal(ctx.redis, ctx.keys));
  const outputs = new OutputClaimCheck(store, { maxInlineOutputBytes: 65_536, maxArtifactBytes: 1_000_000 });
  const artifacts = new ArtifactList(ctx.redis, ctx.keys, new ReadableTasks(tasks, new ArchivedTasks(store)));

  beforeAll(() => {
    gateway = testGateway({
      mcpServers: {
        everything: { command: process.execPath, args: [npmServer('server-everything'), 'stdio'] },
      },
      tenants: { acme: { allow: ['everything'] } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a screenshot step by reference, its bytes in the object store, listed once', async () => {
    const { task } = await tasks.create('tsk_mcpimg1', newNoopTask({ tenantId: 'acme' }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const context = emptySliceContext();
    const ledger = new RecordedStepLedger(new StepRecorder(ctx.redis, ctx.keys, ctx.config), {
      taskId: task.id,
      attempt: 1,
      slice: 1,
      context,
      contextVersion: 0,
      writer: 'run-1',
      codeVersion: 'test',
    });
    const signal = new AbortController().signal;
    const toolContext = {
      taskId: task.id,
      attempt: 1,
      input: task.input,
      outputs: context.outputs,
      signal,
      services: kindServices(ctx.config, gateway),
    };
    const steps = [
      { name: 'everything.get-tiny-image', args: {} },
      { name: 'everything.get-tiny-image', args: {} },
      { name: 'everything.get-resource-reference', args: { resourceType: 'Blob', resourceId: 2 } },
    ];
    for (const { name, args } of steps) {
      const [external] = await gateway.toolsFor('acme', [name], signal);
      const tool = missionTool(external);
      const started = Date.now();
      const outcome = await outputs.keep(await executor.run(tool, args, toolContext), { task, tool: name });
      expect(outcome.ok).toBe(true);
      await ledger.record({ tool: tool.name, args, outcome, started });
    }

    const actions = await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1);
    const saved = Object.values(await ctx.redis.hgetall(ctx.keys.outputs(task.id)));
    expect(actions).toHaveLength(3);
    for (const stored of [...actions, ...saved]) {
      expect(Buffer.byteLength(stored)).toBeLessThan(2048);
      expect(stored).not.toMatch(/iVBOR|[A-Za-z0-9+/]{200}/);
    }
    const first = JSON.parse(actions[0]) as { result: { content: Array<Record<string, any>> } };
    const part = first.result.content.find((p) => p.artifact);
    expect(part).toMatchObject({ type: 'image', artifact: { mimeType: 'image/png', width: 20, height: 20 } });

    const listed = await artifacts.forTenant('acme', task.id);
    const png = listed.filter((entry) => entry.mimeType === 'image/png');
    // The same image in two steps: one entry per step, one object in the store.
    expect(png.map((entry) => [entry.step, entry.tool])).toEqual([
      [1, 'everything.get-tiny-image'],
      [2, 'everything.get-tiny-image'],
    ]);
    expect(png[0].id).toBe(part!.artifact.id);
    const blob = listed.find((entry) => entry.step === 3)!;
    expect(blob).toMatchObject({
      name: 'demo://resource/dynamic/blob/2',
      tool: 'everything.get-resource-reference',
    });
    await expect(artifacts.forTenant('other', task.id)).rejects.toThrow(/not found/);

    for (const entry of [png[0], blob]) {
      const bytes = (await store.get(ObjectKeys.artifact('acme', task.id, entry.id)))!;
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.id);
      expect(bytes.length).toBe(entry.bytes);
    }
    expect(rasterTypeOf((await store.get(ObjectKeys.artifact('acme', task.id, png[0].id)))!)).toBe(
      'image/png',
    );
  });
});
