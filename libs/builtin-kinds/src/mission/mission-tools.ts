import { createHash } from 'node:crypto';
import type { ExternalTool } from '@vigil/tools';
import { ToolOutput, type KindTool, type ToolContext } from '@vigil/kinds';
import type { MissionInput } from './mission.input';

/**
 * The idempotency key of one logical write of one task (docs/ARCHITECTURE.md, invariant 4): the
 * same on every attempt, so a lookup after a crash or the external system itself recognises it.
 */
export function idempotencyKeyOf(taskId: string, stepKey: string): string {
  return createHash('sha256').update(`${taskId}\n${stepKey}`).digest('hex').slice(0, 32);
}

/**
 * A catalog tool as the runtime runs it: the model sees its `modelName`; a write goes through the
 * write journal, with its idempotency key sent along; the raw result is the step's saved output
 * (the `tool_result` check points into the same shape) and the model reads the gateway's bounded
 * text; server progress counts as a heartbeat; a write with a lookup is reconciled through it.
 */
export function missionTool(tool: ExternalTool): KindTool<MissionInput> {
  const options = (args: Record<string, unknown>, context: ToolContext<MissionInput>) => ({
    signal: context.signal,
    ...(tool.effect === 'write'
      ? { idempotencyKey: idempotencyKeyOf(context.taskId, tool.stepKey(args)) }
      : {}),
    ...(context.onProgress ? { onProgress: context.onProgress } : {}),
    ...(context.traceparent ? { traceparent: context.traceparent } : {}),
  });
  const lookup = tool.lookup?.bind(tool);
  return {
    name: tool.modelName,
    taskName: tool.catalogName,
    description: tool.description,
    parameters: tool.inputSchema,
    effect: tool.effect,
    ...(tool.effect === 'write' && tool.idempotent ? { repeatableWrite: true } : {}),
    ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
    ...(tool.statefulServer ? { statefulServer: tool.statefulServer } : {}),
    stepKey: (args) => tool.stepKey(args),
    execute: async (args, context) => {
      const output = await tool.call(args, options(args, context));
      return new ToolOutput(output.raw ?? null, output.text, output.binaries, output.session);
    },
    ...(tool.hasLookup && lookup
      ? {
          reconcile: async (args: Record<string, unknown>, context: ToolContext<MissionInput>) =>
            (await lookup(args, options(args, context))) ?? null,
        }
      : {}),
  };
}
