import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolExecutor, type ToolOutcome } from '@vigil/agent';
import { parseToolCatalog } from '@vigil/config';
import { missionKind, type MissionInput } from '@vigil/builtin-kinds';
import { kindServices, type KindTool, type ToolContext } from '@vigil/kinds';
import type { NewTask } from '@vigil/tasks';
import { CatalogToolGateway } from '@vigil/tools';
import { BenchContext } from './lib/context';
import { ROOT } from './lib/dist';
import type { Bench } from './lib/result';
import { countedStepStores, measureStepKinds, STEP_RT_OPS } from './lib/step-costs';
import { BENCH_TENANT } from './lib/tasks';

const SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const READ = 'memory.open_nodes';
const WRITE = 'memory.create_entities';

function missionTask(input: MissionInput): NewTask {
  return {
    tenantId: BENCH_TENANT,
    kind: 'mission',
    title: 'mission steps bench',
    input,
    exitCriteria: [{ check: 'findings_count', expected: 1 }],
    budgetUsd: 3,
    model: 'opus',
    totalUnits: null,
    sandbox: true,
    notify: {},
    agent: { policy: ['opus'] },
    codeVersion: 'bench',
  };
}

/**
 * Issue 12: a mission's tool step costs the Redis round trips every kind's does (issue 3, the
 * `steps` bench): 1 for a read, 2 for a write. The tools are the mission kind's own (`toolsFor`
 * over a CatalogToolGateway on the real `@modelcontextprotocol/server-memory`, spawned over stdio):
 * `open_nodes` is a read (`readOnlyHint`), `create_entities` a write. Each step runs as a slice runs
 * it: the Worker's ToolExecutor (a write journals its intent through WriteJournal, the MCP call
 * carries its idempotency key), then the StepRecorder records the action, the output and the
 * journalled result, all on one connection whose requests are counted; INFO commandstats gives the
 * commands behind them. The MCP call itself never touches Redis. `--quick`: 10 windows, else 30.
 */
export const runMissionStepsBench: Bench = async ({ quick }) => {
  const ctx = new BenchContext('mission-steps');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-mission-steps-'));
  const gateway = new CatalogToolGateway(
    parseToolCatalog(
      {
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [SERVER],
            env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          },
        },
        tenants: { [BENCH_TENANT]: { allow: ['memory'] } },
      },
      'bench-catalog.json',
      process.env,
    ),
    { toolCallTimeoutMs: 30_000, allowPrivate: false },
  );
  try {
    const input: MissionInput = { goal: 'Remember every object the bench makes.', tools: [READ, WRITE] };
    const { counter, recorder, journal, task } = await countedStepStores(
      ctx,
      'mission-steps-1',
      missionTask(input),
    );
    const executor = new ToolExecutor(journal);

    const services = kindServices(ctx.config, gateway);
    const signal = new AbortController().signal;
    const tools = await missionKind.toolsFor!({ id: task.id, tenantId: task.tenantId, input }, services);
    const toolNamed = (name: string): KindTool<MissionInput> => {
      const tool = tools.find((candidate) => candidate.taskName === name);
      if (!tool) throw new Error(`the mission has no tool ${name}`);
      return tool;
    };
    const read = toolNamed(READ);
    const write = toolNamed(WRITE);
    if (read.effect !== 'read' || write.effect !== 'write')
      throw new Error(`expected a read and a write, got ${read.effect} and ${write.effect}`);
    const context: ToolContext<MissionInput> = {
      taskId: task.id,
      attempt: 1,
      input,
      outputs: new Map(),
      signal,
      services,
    };

    /** One step as slice-session.ts runs it: the executor, then one record-step call. */
    const step = async (tool: KindTool<MissionInput>, args: Record<string, unknown>) => {
      const startedAt = Date.now();
      const outcome: ToolOutcome = await executor.run(tool as KindTool, args, context as ToolContext);
      if (!outcome.ok || outcome.deduplicated)
        throw new Error(`${tool.taskName} did not run: ${outcome.error ?? 'answered from the journal'}`);
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: {
          attempt: 1,
          slice: 1,
          tool: tool.name,
          key: outcome.key,
          args,
          result: outcome.result,
          startedAt,
          durationMs: Date.now() - startedAt,
        },
        succeeded: true,
        outputJson: JSON.stringify(outcome.result),
        journal: outcome.journal,
        currentStep: `${tool.name} ${outcome.key}`,
      });
    };
    const writeStep = (i: number) =>
      step(write, { entities: [{ name: `object ${i}`, entityType: 'bench', observations: [`made ${i}`] }] });
    const readStep = (i: number) => step(read, { names: [`object ${i % 10}`] });

    const windows = quick ? 10 : 30;
    // The warm-up also has the MCP server list its tools.
    return await measureStepKinds(ctx, counter, 'mission_steps', windows, [
      {
        kind: 'write',
        run: writeStep,
        target: 2,
        stepName: 'mission write',
        roundTripNote: `Client-side count of requests the Worker's ToolExecutor (WriteJournal) and StepRecorder sent over ${STEP_RT_OPS} mission write steps (${WRITE} on server-memory over stdio).`,
        commands: 'the journal-intent and record-step scripts and every command they run.',
      },
      {
        kind: 'read',
        run: readStep,
        target: 1,
        stepName: 'mission read',
        roundTripNote: `Client-side count of requests the Worker's ToolExecutor and StepRecorder sent over ${STEP_RT_OPS} mission read steps (${READ} on server-memory over stdio).`,
        commands: 'the record-step script and every command it runs.',
      },
    ]);
  } finally {
    await gateway.close();
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
