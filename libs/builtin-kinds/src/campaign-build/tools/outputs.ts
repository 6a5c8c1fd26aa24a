import { ToolArgumentError, type ToolContext } from '@vigil/kinds';
import type { CampaignBuildInput } from '../campaign-build.input';
import type { GraphNode } from '@vigil/meta-graph';
import { describeStep } from '../step-keys';

type Context = Pick<ToolContext<CampaignBuildInput>, 'outputs'>;

function field(context: Context, key: string, name: string, step: string): string {
  const output = context.outputs.get(key) as Record<string, unknown> | null | undefined;
  const value = output?.[name];
  if (typeof value !== 'string' || value.length === 0)
    throw new ToolArgumentError(`${step} has not succeeded yet`);
  return value;
}

/** The id saved by an earlier create step, e.g. `campaign:0` → `{id}`. */
export function requireId(
  context: Context,
  key: string,
  tool: string,
  args: Record<string, unknown>,
): string {
  return field(context, key, 'id', describeStep(tool, args));
}

/** The hash saved by an earlier upload_image step. */
export function requireHash(
  context: Context,
  key: string,
  tool: string,
  args: Record<string, unknown>,
): string {
  return field(context, key, 'hash', describeStep(tool, args));
}

/** What reconcile reports: the first match (the shape execute returns), flagging duplicates. */
export function reconciled<T extends object>(
  matches: GraphNode[],
  toResult: (node: GraphNode) => T,
): (T & { duplicates?: number }) | null {
  if (matches.length === 0) return null;
  const result = toResult(matches[0]);
  return matches.length > 1 ? { ...result, duplicates: matches.length } : result;
}
