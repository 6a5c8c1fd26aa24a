import type { JsonSchema } from '@vigil/kinds';

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * An image a model is shown with a tool result (docs/models.md, "Images"): a raster image by its
 * magic bytes, already within every provider's limits (model-image.ts), base64.
 */
export interface ModelImage {
  /** The artifact id of the image as the tool returned it (before any downscaling). */
  id: string;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
  /** Its size as sent. */
  width: number;
  height: number;
  /** The bytes as sent, base64. */
  data: string;
}

export type ChatMessage =
  /**
   * `cacheBreakpoint`: the prompt up to and including this message is stable (a slice's opening),
   * so a provider with explicit prompt caching marks it (docs/models.md, "Prompts that stay bounded").
   */
  | { role: 'user'; content: string; cacheBreakpoint?: boolean }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  /** `images`: shown with the result (Anthropic: inside the tool_result; Gemini: with the function response). */
  | {
      role: 'tool';
      toolCallId: string;
      name: string;
      content: string;
      isError: boolean;
      images?: ModelImage[];
    };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * Tokens one call was billed for. `inputTokens` are the prompt tokens billed at the full input rate;
 * a cache read or write is not counted there but in its own field, priced at its own rate.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's prompt cache (Anthropic, Gemini). */
  cacheReadTokens?: number;
  /** Prompt tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
}

/** One model turn's request. `system` and `messages` may be rendered on first read (a slice's are). */
export interface GenerateRequest {
  readonly system: string;
  readonly messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** The output bound of this call, lowered from the provider's default to fit the budget. */
  maxTokens?: number;
  /**
   * The model's text as it streams, in order: the pieces joined are the result's `text`
   * (docs/api.md, "Live model output"). Called synchronously; it must not throw or block.
   */
  onText?: (text: string) => void;
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
