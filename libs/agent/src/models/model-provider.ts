import type { JsonSchema } from '@vigil/kinds';

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** One model turn's request. `system` and `messages` may be rendered on first read (a slice's are). */
export interface GenerateRequest {
  readonly system: string;
  readonly messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** The output bound of this call, lowered from the provider's default to fit the budget. */
  maxTokens?: number;
}

export interface GenerateResult {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
}

/**
 * One model behind one interface: Claude, Gemini, or the deterministic scripted agent. What a call
 * costs follows from `modelId` and the usage (price-table.ts).
 */
export interface ModelProvider {
  /** The retry policy's name this provider runs for (`opus`, `gemini`). */
  readonly name: string;
  readonly modelId: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}
