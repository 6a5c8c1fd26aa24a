import type { ChatMessage } from '../models/model-provider';
import { buildPrompt, type PromptStyle } from './prompt-builder';
import type { SliceData } from './slice-session.types';

/**
 * A slice's system prompt and opening: the task, its exit criteria and its recorded context, with
 * what the runtime tells the agent of its surroundings — its children's results, tool servers that
 * restarted, the instructions the user gave while it ran (docs/api.md, "Steering").
 */
export function sliceOpening(
  slice: SliceData,
  style: PromptStyle,
): { system: string; messages: ChatMessage[] } {
  const { task, kind, context } = slice;
  const criteria = task.exitCriteria
    .map((c) => `- ${c.check}: expected ${JSON.stringify(c.expected)}`)
    .join('\n');
  const situation = [slice.childrenSummary, slice.statefulServers?.openingNotice, slice.steering?.opening()];
  return buildPrompt(task, kind, context, criteria, style, situation.filter(Boolean).join('\n\n'));
}
