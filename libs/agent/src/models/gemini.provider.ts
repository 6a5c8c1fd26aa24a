import type {
  GoogleGenAI,
  Content,
  FunctionDeclaration,
  GenerateContentParameters,
  GenerateContentResponse,
  Part,
} from '@google/genai';
import type { VigilConfig } from '@vigil/config';
import { GeminiStreamAssembly } from './gemini-stream';
import { genAiSdk } from './provider-sdks';
import type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
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
  parseToolContent,
  raceAbort,
} from './provider-support';

export type GeminiSettings = Pick<VigilConfig, 'geminiApiKey' | 'geminiBaseUrl' | 'geminiModel'>;

export interface GeminiProviderOptions {
  /** A shared client; otherwise one is built from the settings. */
  client?: GoogleGenAI;
  /** Attempts of one call, the first included, on 408/429/5xx (default 3: two retries). */
  attempts?: number;
  /** First delay between attempts, in ms (default 1000, doubling up to 8 s). */
  retryDelayMs?: number;
  /** Per attempt, in ms (default 10 minutes; the SDK has none of its own). */
  timeoutMs?: number;
  /**
   * A fetch to use instead of the SDK's default (global fetch through Node's global dispatcher, its
   * timeouts disabled). Tests pass one: that dispatcher is not visible inside a Jest sandbox.
   */
  fetch?: typeof fetch;
}

/**
 * Gemini 1.x and 2.x: no thought signatures to give back, and no media inside a function response
 * (an image goes as an inlineData part beside it, in the same turn). Gemini 3 and later take a
 * function response's images as its own `parts` ("multimodal function responses",
 * ai.google.dev/gemini-api/docs/function-calling; the SDK's FunctionResponse.parts).
 */
const LEGACY_MODEL = /^(models\/)?gemini-[12][.-]/;

/** Gemini 3 and later reject a replayed function call without its signature; this is Google's documented stand-in. */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * The Gemini API client (never Vertex, whatever GOOGLE_GENAI_USE_VERTEXAI says) on `v1beta`, the
 * version Google documents the REST wire format against (this SDK defaults to `v1`), with bounded retries.
 */
export function createGeminiClient(
  settings: GeminiSettings,
  options: GeminiProviderOptions = {},
): GoogleGenAI {
  if (!settings.geminiApiKey) throw new Error('GEMINI_API_KEY is not set');
  const delaySeconds = (options.retryDelayMs ?? 1000) / 1000;
  return new (genAiSdk().GoogleGenAI)({
    vertexai: false,
    apiKey: settings.geminiApiKey,
    apiVersion: 'v1beta',
    httpOptions: {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(settings.geminiBaseUrl ? { baseUrl: settings.geminiBaseUrl } : {}),
      timeout: options.timeoutMs ?? 600_000,
      retryOptions: {
        attempts: options.attempts ?? 3,
        initialDelay: delaySeconds,
        maxDelay: Math.max(delaySeconds, 8),
      },
    },
  });
}

/**
 * Gemini through the official SDK. Per slice it remembers which call ids Gemini named itself and the
 * thought signatures it sent, since both must go back with the history and the neutral format has no room.
 */
export class GeminiProvider implements ModelProvider {
  readonly name = 'gemini';
  readonly modelId: string;
  private readonly client: GoogleGenAI;
  private readonly calls = new Map<string, { native: boolean; signature?: string }>();
  private callCounter = 0;

  constructor(settings: GeminiSettings, options: GeminiProviderOptions = {}) {
    this.modelId = settings.geminiModel;
    this.client = options.client ?? createGeminiClient(settings, options);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { signal } = request;
    if (signal.aborted) throw abortError(signal);
    let response: GenerateContentResponse;
    try {
      const params: GenerateContentParameters = {
        model: this.modelId,
        contents: this.toContents(request.messages),
        config: {
          ...(request.system ? { systemInstruction: { parts: [{ text: request.system }] } } : {}),
          ...(request.tools.length
            ? { tools: [{ functionDeclarations: request.tools.map(toGeminiDeclaration) }] }
            : {}),
          abortSignal: signal,
          maxOutputTokens: request.maxTokens ?? MAX_OUTPUT_TOKENS,
        },
      };
      response = await raceAbort(this.stream(params, request.onText), signal);
    } catch (error) {
      throw toProviderError(error, signal);
    }
    return this.parse(response);
  }

  /**
   * The call streamed (docs/api.md, "Live model output"), its chunks put back together into the
   * response a non-streamed call returns.
   */
  private async stream(
    params: GenerateContentParameters,
    onText: ((text: string) => void) | undefined,
  ): Promise<GenerateContentResponse> {
    const assembly = new GeminiStreamAssembly(onText);
    for await (const chunk of await this.client.models.generateContentStream(params)) assembly.add(chunk);
    return assembly.response();
  }

  /** Roles `user` and `model`; function responses go back in a `user` turn, consecutive ones merged. */
  toContents(messages: ChatMessage[]): Content[] {
    const out: Array<Content & { parts: Part[] }> = [];
    const append = (role: 'user' | 'model', parts: Part[]) => {
      const last = out[out.length - 1];
      if (last?.role === role) last.parts.push(...parts);
      else out.push({ role, parts });
    };
    for (const message of pairToolResults(messages)) {
      if (message.role === 'user') append('user', [{ text: message.content || '(empty)' }]);
      else if (message.role === 'assistant')
        append('model', this.modelParts(message.content, message.toolCalls));
      else {
        const value = parseToolContent(message.content);
        const error = isRecord(value) && 'error' in value ? value.error : value;
        const images = (message.images ?? []).map((image) => ({
          inlineData: { mimeType: image.mimeType, data: image.data },
        }));
        // Gemini 3 takes images inside the function response; Gemini 1.x and 2.x only beside it.
        const nested = images.length > 0 && !LEGACY_MODEL.test(this.modelId);
        append('user', [
          {
            functionResponse: {
              ...(this.calls.get(message.toolCallId)?.native ? { id: message.toolCallId } : {}),
              name: message.name,
              response: message.isError ? { error } : { result: value },
              ...(nested ? { parts: images } : {}),
            },
          },
          ...(nested ? [] : images),
        ]);
      }
    }
    return out;
  }

  private modelParts(text: string, toolCalls: ToolCall[]): Part[] {
    const parts: Part[] = text ? [{ text }] : [];
    let seen = false;
    const callParts = toolCalls.map((call): Part => {
      const known = this.calls.get(call.id);
      if (known) seen = true;
      return {
        functionCall: { ...(known?.native ? { id: call.id } : {}), name: call.name, args: call.args ?? {} },
        ...(known?.signature ? { thoughtSignature: known.signature } : {}),
      };
    });
    // A turn this provider never saw (replayed history) has no signature to give back.
    if (callParts.length && !seen && !LEGACY_MODEL.test(this.modelId)) {
      callParts[0].thoughtSignature = SKIP_SIGNATURE;
    }
    parts.push(...callParts);
    return parts.length ? parts : [{ text: '(no reply)' }];
  }

  private parse(response: GenerateContentResponse): GenerateResult {
    const candidate = response.candidates?.[0];
    if (!candidate) {
      const blocked = response.promptFeedback?.blockReason ?? 'no reason given';
      throw new ModelProviderError('gemini', `Gemini returned no candidate (${blocked})`, {
        retryable: false,
      });
    }
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const part of candidate.content?.parts ?? []) {
      if (part.thought) continue;
      if (part.functionCall) {
        const given = part.functionCall.id;
        const id = given || `gemini_call_${++this.callCounter}`;
        this.calls.set(id, { native: Boolean(given), signature: part.thoughtSignature });
        const args = part.functionCall.args;
        toolCalls.push({ id, name: part.functionCall.name ?? '', args: isRecord(args) ? args : {} });
      } else if (typeof part.text === 'string') texts.push(part.text);
    }
    const usage = response.usageMetadata;
    const prompt = (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0);
    const cached = Math.min(prompt, usage?.cachedContentTokenCount ?? 0);
    return {
      text: texts.join(''),
      toolCalls,
      usage: {
        // `promptTokenCount` includes the tokens served from the (implicit) cache; those are
        // billed at the cached rate, the rest at the input rate (price-table.ts).
        inputTokens: Math.max(0, prompt - cached),
        // Thinking tokens are billed as output.
        outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
      },
    };
  }
}

export function toGeminiDeclaration(tool: ToolSpec): FunctionDeclaration {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters };
}

function toProviderError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal, error);
  if (error instanceof ModelProviderError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof genAiSdk().ApiError && typeof error.status === 'number') {
    return new ModelProviderError('gemini', `Gemini API error ${error.status}: ${message}`, {
      retryable: isRetryableStatus(error.status),
      status: error.status,
      cause: error,
    });
  }
  // fetch rejects with a TypeError when the network fails, and aborts an attempt that timed out.
  const name = error instanceof Error ? error.name : '';
  const network = name === 'TypeError' || name === 'AbortError' || name === 'TimeoutError';
  return new ModelProviderError('gemini', `Gemini call failed: ${message}`, {
    retryable: network,
    cause: error,
  });
}
