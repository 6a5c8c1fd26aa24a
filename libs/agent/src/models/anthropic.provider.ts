import type Anthropic from '@anthropic-ai/sdk';
import type { VigilConfig } from '@vigil/config';
import { anthropicTextStream } from './anthropic-stream';
import { anthropicSdk } from './provider-sdks';
import type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  ModelImage,
  ModelProvider,
  ToolCall,
  ToolSpec,
} from './model-provider';
import {
  MAX_OUTPUT_TOKENS,
  ModelProviderError,
  abortError,
  isRecord,
  isRetryableStatus,
  pairToolResults,
  raceAbort,
} from './provider-support';

export type AnthropicSettings = Pick<VigilConfig, 'anthropicApiKey' | 'anthropicBaseUrl' | 'anthropicModel'>;

export interface AnthropicProviderOptions {
  /** A shared client; otherwise one is built from the settings. */
  client?: Anthropic;
  /** The SDK's own retries of 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
  /** Per attempt, in ms (default 10 minutes, the SDK's). */
  timeoutMs?: number;
  /**
   * Prompt-caching breakpoints on the tools, the system prompt and the slice's opening (default
   * true; false renders the request as before caching, for the prompts bench's "before" figures).
   */
  promptCaching?: boolean;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The client for the documented Messages API. The key goes in `x-api-key`, the documented header:
 * this SDK version would otherwise send `apiKey` as `Authorization: Bearer`, so that is omitted.
 */
export function createAnthropicClient(
  settings: AnthropicSettings,
  options: AnthropicProviderOptions = {},
): Anthropic {
  if (!settings.anthropicApiKey) throw new Error('ANTHROPIC_API_KEY is not set');
  return new (anthropicSdk().default)({
    apiKey: settings.anthropicApiKey,
    baseURL: settings.anthropicBaseUrl ?? null,
    defaultHeaders: { 'X-Api-Key': settings.anthropicApiKey, Authorization: null },
    maxRetries: options.maxRetries ?? 2,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
}

/** Claude through the official SDK: neutral messages in, Messages API wire format out and back. */
export class AnthropicProvider implements ModelProvider {
  readonly name = 'opus';
  readonly modelId: string;
  private readonly client: Anthropic;
  private readonly caching: boolean;

  constructor(settings: AnthropicSettings, options: AnthropicProviderOptions = {}) {
    this.modelId = settings.anthropicModel;
    this.client = options.client ?? createAnthropicClient(settings, options);
    this.caching = options.promptCaching ?? true;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { signal } = request;
    if (signal.aborted) throw abortError(signal);
    const body = toAnthropicBody(this.modelId, request, this.caching);
    let reply: Anthropic.Message;
    try {
      // Streamed (docs/api.md, "Live model output"): the SDK assembles the same Message a
      // non-streamed call returns, usage and cache tokens included.
      const stream = this.client.messages.stream(body, { signal });
      if (request.onText) stream.on('streamEvent', anthropicTextStream(request.onText));
      reply = await raceAbort(stream.finalMessage(), signal);
    } catch (error) {
      throw toProviderError(error, signal);
    }
    return parseAnthropicReply(reply);
  }
}

/**
 * The Messages API request. With caching, up to four `cache_control` breakpoints, in the order
 * the API builds its cache prefix (tools, system, messages): the last tool, the system prompt,
 * the slice's opening message — the parts that stay the same across a slice's calls — and the end
 * of the conversation so far
 * (docs/models.md, "Prompts that stay bounded"). A prefix shorter than the model's minimum
 * (1,024 tokens for Opus) is simply not cached; the breakpoint costs nothing then.
 */
export function toAnthropicBody(
  modelId: string,
  request: Pick<GenerateRequest, 'system' | 'messages' | 'tools' | 'maxTokens'>,
  caching = true,
): Anthropic.MessageCreateParamsNonStreaming {
  const tools = request.tools.map(toAnthropicTool);
  if (caching && tools.length)
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: EPHEMERAL };
  const system: string | Anthropic.TextBlockParam[] | undefined = !request.system
    ? undefined
    : caching
      ? [{ type: 'text', text: request.system, cache_control: EPHEMERAL }]
      : request.system;
  const messages = toAnthropicMessages(request.messages, caching);
  if (caching) markConversationEnd(messages);
  return {
    model: modelId,
    max_tokens: request.maxTokens ?? MAX_OUTPUT_TOKENS,
    messages,
    ...(system ? { system } : {}),
    ...(tools.length ? { tools } : {}),
  };
}

/**
 * The fourth breakpoint moves with the conversation: on the last block of the last message, so the
 * next call of the slice reads everything up to here from the cache (the API looks back up to 20
 * blocks from each breakpoint for an earlier one). This is what caches a slice whose stable part is
 * below the 1,024-token minimum: its conversation grows past it within a few steps. Trimmed results
 * stay trimmed (slice-conversation.ts), so an earlier call's prefix still matches.
 */
function markConversationEnd(messages: Anthropic.MessageParam[]): void {
  const last = messages.at(-1);
  if (!last || typeof last.content === 'string' || last.content.length === 0) return;
  const block = last.content[last.content.length - 1] as { cache_control?: unknown };
  if (block.cache_control) return;
  last.content[last.content.length - 1] = {
    ...last.content[last.content.length - 1],
    cache_control: EPHEMERAL,
  } as never;
}

export function toAnthropicTool(tool: ToolSpec): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters } as Anthropic.Tool.InputSchema,
  };
}

/**
 * Assistant turns carry `tool_use` blocks; their results go back as `tool_result` blocks in the next
 * user message, consecutive results (and any text after them) merged into that one message.
 */
export function toAnthropicMessages(messages: ChatMessage[], caching = false): Anthropic.MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Anthropic.ContentBlockParam[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: Anthropic.ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of pairToolResults(messages)) {
    if (message.role === 'user') {
      // The API refuses empty text blocks.
      const marked = caching && message.cacheBreakpoint;
      append('user', [
        { type: 'text', text: message.content || '(empty)', ...(marked ? { cache_control: EPHEMERAL } : {}) },
      ]);
    } else if (message.role === 'assistant') {
      const blocks: Anthropic.ContentBlockParam[] = [];
      if (message.content) blocks.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args ?? {} });
      }
      append('assistant', blocks.length ? blocks : [{ type: 'text', text: '(no reply)' }]);
    } else {
      append('user', [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          ...toolResultContent(message.content, message.images),
          is_error: message.isError,
        },
      ]);
    }
  }
  return out;
}

/**
 * A tool result's content: its text, and its images as `image` blocks with a base64 source inside
 * the `tool_result` (docs/models.md, "Images"), so the model sees what the tool saw.
 */
function toolResultContent(
  text: string,
  images: ModelImage[] | undefined,
): { content?: string | Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> } {
  if (!images?.length) return text ? { content: text } : {};
  return {
    content: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...images.map((image): Anthropic.ImageBlockParam => ({
        type: 'image',
        source: { type: 'base64', media_type: image.mimeType, data: image.data },
      })),
    ],
  };
}

export function parseAnthropicReply(reply: Anthropic.Message): GenerateResult {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of reply.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, name: block.name, args: isRecord(block.input) ? block.input : {} });
    }
  }
  const usage = reply.usage;
  return {
    text: texts.join('\n'),
    toolCalls,
    usage: {
      // `input_tokens` counts only the prompt after the last cache hit or write; the cache's own
      // tokens come separately and are priced at their own rates (price-table.ts).
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
    },
  };
}

function toProviderError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal, error);
  if (error instanceof ModelProviderError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const { APIConnectionError, APIError } = anthropicSdk();
  if (error instanceof APIConnectionError) {
    // Network failures and timeouts, after the SDK's own retries.
    return new ModelProviderError('opus', `Anthropic API unreachable: ${message}`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    return new ModelProviderError('opus', `Anthropic API error: ${message}`, {
      retryable: isRetryableStatus(error.status),
      status: error.status,
      cause: error,
    });
  }
  return new ModelProviderError('opus', `Anthropic call failed: ${message}`, {
    retryable: false,
    cause: error,
  });
}
