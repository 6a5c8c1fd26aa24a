import { GEN_AI, VIGIL, type SpanParent, type TraceSpan, type Tracing } from '@vigil/telemetry';
import type { GenerateRequest, GenerateResult } from '../models/model-provider';
import type { ToolCall } from '../models/model-provider';
import type { ToolOutcome } from './tool-executor';

/**
 * The spans of one slice's calls (docs/observability.md, "Spans and attributes"): a model call as
 * the GenAI semantic conventions describe a `chat` operation, with Vigil's cost beside the usage;
 * a tool call as `execute_tool`, with its effect and what the write journal made of it. Content
 * (prompts, arguments, results) only through `tracing.content`, which is off unless asked for.
 */

export interface ModelCallTrace {
  tracing: Tracing;
  /** The slice's span. */
  parent: SpanParent;
}

export function startModelCallSpan(
  trace: ModelCallTrace,
  who: { provider: string; modelId: string; policyName: string },
  request: GenerateRequest,
): TraceSpan {
  const { tracing } = trace;
  const span = tracing.start(`chat ${who.modelId}`, trace.parent, {
    kind: 'client',
    attributes: {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: who.provider,
      [GEN_AI.system]: who.provider,
      [GEN_AI.requestModel]: who.modelId,
      [VIGIL.model]: who.policyName,
    },
  });
  if (tracing.capturesContent)
    span.set({
      [GEN_AI.systemInstructions]: tracing.content(request.system),
      [GEN_AI.inputMessages]: tracing.content(request.messages),
    });
  return span;
}

export function recordModelReply(
  trace: ModelCallTrace,
  span: TraceSpan,
  request: GenerateRequest,
  reply: GenerateResult,
  money: { costUsd: number; reservedUsd: number },
): void {
  const { usage } = reply;
  span.set({
    [GEN_AI.requestMaxTokens]: request.maxTokens,
    [GEN_AI.inputTokens]: usage.inputTokens,
    [GEN_AI.outputTokens]: usage.outputTokens,
    [GEN_AI.cacheReadTokens]: usage.cacheReadTokens ?? 0,
    [GEN_AI.cacheCreationTokens]: usage.cacheWriteTokens ?? 0,
    [GEN_AI.finishReasons]: [reply.toolCalls.length > 0 ? 'tool_call' : 'stop'],
    [VIGIL.costUsd]: money.costUsd,
    [VIGIL.reservedUsd]: money.reservedUsd,
  });
  if (trace.tracing.capturesContent)
    span.set({
      [GEN_AI.outputMessages]: trace.tracing.content([
        { role: 'assistant', text: reply.text, toolCalls: reply.toolCalls },
      ]),
    });
}

export function startToolCallSpan(
  tracing: Tracing,
  parent: SpanParent,
  call: ToolCall,
  effect: 'read' | 'write' | 'builtin',
): TraceSpan {
  const span = tracing.start(`execute_tool ${call.name}`, parent, {
    kind: effect === 'builtin' ? 'internal' : 'client',
    attributes: {
      [GEN_AI.operationName]: 'execute_tool',
      [GEN_AI.toolName]: call.name,
      [GEN_AI.toolCallId]: call.id,
      [GEN_AI.toolType]: effect === 'builtin' ? 'function' : 'extension',
      [VIGIL.toolEffect]: effect,
    },
  });
  if (tracing.capturesContent) span.set({ [GEN_AI.toolCallArguments]: tracing.content(call.args) });
  return span;
}

/**
 * What the write journal made of the call: `made` (a write done now), `deduplicated` (done before,
 * answered from the journal), `reconciled` (found through the tool's lookup after an unknown
 * outcome), `unresolved` (unknown, a person must say); a read has none.
 */
function journalOf(outcome: ToolOutcome, effect: 'read' | 'write' | 'builtin'): string | undefined {
  if (outcome.unresolved) return 'unresolved';
  if (outcome.deduplicated) return 'deduplicated';
  if (outcome.reconciled) return 'reconciled';
  if (effect === 'write') return outcome.ok ? 'made' : 'failed';
  return undefined;
}

export function endToolCallSpan(
  tracing: Tracing,
  span: TraceSpan,
  outcome: ToolOutcome,
  effect: 'read' | 'write' | 'builtin',
): void {
  if (!span.recording) return;
  span.set({
    [VIGIL.stepKey]: outcome.key ?? undefined,
    [VIGIL.toolOutcome]: outcome.ok ? 'ok' : 'error',
    [VIGIL.journal]: journalOf(outcome, effect),
  });
  if (tracing.capturesContent)
    span.set({
      [GEN_AI.toolCallResult]: tracing.content(
        outcome.ok ? (outcome.shown ?? outcome.result ?? null) : { error: outcome.error },
      ),
    });
  if (!outcome.ok) span.fail(outcome.error ?? 'tool error', 'tool_error');
  span.end();
}
