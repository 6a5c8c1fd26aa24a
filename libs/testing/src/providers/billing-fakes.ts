import { createHash, type Hash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { anthropicError, anthropicProblem, expectAnthropicStream, sendAnthropic } from './anthropic-wire';
import { expectGeminiStream, geminiError, geminiModelOf, geminiProblem, sendGemini } from './gemini-wire';
import { anthropicImageTokens, geminiImageTokens } from './image-tokens';
import { type LoopbackRequest, LoopbackServer } from './loopback-server';

/**
 * Loopback fakes of the Messages API and of Gemini's generateContent (each streamed when asked,
 * as the providers document it) that bill usage the way each
 * provider documents it, prompt caching included, for tests and the prompts bench to measure what
 * the runtime's prompts cost through the real SDKs. Not models: what they answer comes from `next`.
 *
 * Token counting (both fakes): a prompt is a sequence of blocks — for Anthropic each tool, each
 * system text block and each message content block, in that order (the order the API builds its
 * cache prefix in); for Gemini the system instruction's parts, each function declaration, then
 * each part of `contents`. A block costs ceil(characters of its JSON / 4) tokens (`cache_control`
 * left out), a documented approximation of a BPE tokenizer, not the real one; an image in it
 * (Anthropic's `image` block, Gemini's `inlineData`) costs what the provider documents for its
 * pixel size instead of its base64 (image-tokens.ts). Output is the reply's content the same way.
 * A block's identity in the cache is its whole JSON, image bytes included.
 */
type Body = Record<string, any>;

export const approxTokens = (value: unknown): number =>
  Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4);

/** `approxTokens` of `value` with each image in it priced by `price` (its base64 never counted as text). */
function tokensWithImages(
  value: unknown,
  imageData: (node: Body) => string | undefined,
  price: (base64: string) => number,
): number {
  const plain = JSON.stringify(value) ?? '';
  if (!plain.includes('"image"') && !plain.includes('"inlineData"')) return Math.ceil(plain.length / 4);
  let images = 0;
  const text = JSON.stringify(value, function (this: unknown, _key, node: unknown) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const data = imageData(node as Body);
    if (data === undefined) return node;
    images += price(data);
    return { image: true };
  });
  return Math.ceil((text ?? '').length / 4) + images;
}

const anthropicImageData = (node: Body): string | undefined =>
  node.type === 'image' && typeof node.source?.data === 'string' ? (node.source.data as string) : undefined;
const geminiImageData = (node: Body): string | undefined =>
  typeof node.inlineData?.data === 'string' ? (node.inlineData.data as string) : undefined;

/** What the fake bills one call for, in the neutral shape both fakes share. */
export interface BilledUsage {
  /** Prompt tokens billed at the full input rate (Anthropic `input_tokens`; Gemini prompt − cached). */
  uncached: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  /** The whole prompt: uncached + cacheWrite + cacheRead. */
  prompt: number;
}

export interface BilledCall {
  /** The request body as the SDK sent it. */
  body: Body;
  usage: BilledUsage;
}

/** The fake model's next move: one tool call (a name and arguments), given the call number (0-based). */
export type NextToolCall = (call: number, body: Body) => { name: string; args: Record<string, unknown> };

interface FakeOptions {
  apiKey: string;
  next: NextToolCall;
  /** Smallest prefix the cache keeps (Anthropic Opus: 1,024 tokens; Gemini 2.5 Pro: 2,048). */
  minCacheTokens?: number;
}

interface Block {
  canonical: string;
  tokens: number;
}

/** Hashes of every prefix of `blocks`, and the tokens each prefix holds. */
function prefixes(blocks: Block[]): Array<{ hash: string; tokens: number }> {
  const out: Array<{ hash: string; tokens: number }> = [];
  const hash: Hash = createHash('sha256');
  let tokens = 0;
  for (const block of blocks) {
    hash.update(block.canonical);
    hash.update('\u0000');
    tokens += block.tokens;
    out.push({ hash: hash.copy().digest('hex'), tokens });
  }
  return out;
}

abstract class LoopbackFake {
  private readonly server = new LoopbackServer((request, res) => this.handle(request, request.body, res));
  readonly calls: BilledCall[] = [];
  protected readonly cache = new Map<string, number>();

  constructor(protected readonly options: FakeOptions) {}

  listen(): Promise<string> {
    return this.server.listen();
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Forgets the cache (a new process of the provider's, or five idle minutes). */
  clearCache(): void {
    this.cache.clear();
  }

  protected abstract handle(req: LoopbackRequest, body: Body, res: ServerResponse): void;
}

const withoutCacheControl = (block: Body): Body => {
  const { cache_control: _ignored, ...rest } = block;
  return rest;
};

/**
 * Anthropic's Messages API with prompt caching as documented: at each `cache_control` breakpoint
 * the API looks for a cached prefix ending there or at up to 20 blocks before it; the longest hit is
 * a cache read (`cache_read_input_tokens`), the rest of the prompt up to the last breakpoint is
 * written (`cache_creation_input_tokens`), and only what follows the last breakpoint is
 * `input_tokens`. A prefix shorter than the minimum is neither read nor written. Entries never expire
 * (a bench runs well inside the five-minute TTL, which every hit refreshes).
 */
export class AnthropicBillingFake extends LoopbackFake {
  protected handle(req: LoopbackRequest, body: Body, res: ServerResponse): void {
    if (req.method !== 'POST' || req.url !== '/v1/messages')
      return sendAnthropic(res, 404, anthropicError('not_found_error', req.url));
    expectAnthropicStream(body, res);
    const problem = anthropicProblem(req.headers, body, this.options.apiKey);
    if (problem) return sendAnthropic(res, problem.status, anthropicError(problem.type, problem.message));
    const blocks: Body[] = [];
    for (const tool of (body.tools ?? []) as Body[]) blocks.push(tool);
    if (typeof body.system === 'string') blocks.push({ type: 'text', text: body.system });
    else for (const block of (body.system ?? []) as Body[]) blocks.push(block);
    for (const message of body.messages as Body[]) {
      const content =
        typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const block of content as Body[]) blocks.push({ ...block, role: message.role });
    }
    const breakpoints = blocks.flatMap((block, i) => (block.cache_control ? [i] : []));
    if (breakpoints.length > 4)
      return sendAnthropic(
        res,
        400,
        anthropicError('invalid_request_error', 'at most 4 blocks with cache_control'),
      );
    const measured = blocks.map((block) => {
      const plain = withoutCacheControl(block);
      return {
        canonical: JSON.stringify(plain),
        tokens: tokensWithImages({ ...plain, role: undefined }, anthropicImageData, anthropicImageTokens),
      };
    });
    const prefix = prefixes(measured);
    const total = prefix.at(-1)?.tokens ?? 0;
    const min = this.options.minCacheTokens ?? 1024;
    let read = 0;
    for (const point of breakpoints) {
      for (let j = point; j >= Math.max(0, point - 20); j--) {
        const hit = this.cache.get(prefix[j].hash);
        if (hit !== undefined) {
          read = Math.max(read, hit);
          break;
        }
      }
    }
    let written = read;
    for (const point of breakpoints) {
      if (prefix[point].tokens < min) continue;
      written = Math.max(written, prefix[point].tokens);
      this.cache.set(prefix[point].hash, prefix[point].tokens);
    }
    const call = this.calls.length;
    const next = this.options.next(call, body);
    const content = [{ type: 'tool_use', id: `toolu_${call + 1}`, name: next.name, input: next.args }];
    const usage: BilledUsage = {
      uncached: total - written,
      cacheWrite: written - read,
      cacheRead: read,
      output: approxTokens(content),
      prompt: total,
    };
    this.calls.push({ body, usage });
    sendAnthropic(res, 200, {
      id: `msg_fake_${call + 1}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: usage.uncached,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: usage.output,
      },
    });
  }
}

/**
 * Gemini's generateContent with implicit caching as documented: a request whose prompt starts
 * with a prefix of a recent request is served that prefix from the cache, counted in
 * `usageMetadata.cachedContentTokenCount` (part of `promptTokenCount`, billed at the cached rate),
 * once the prefix reaches the model's minimum (2,048 for Gemini 2.5 Pro). The fake takes the
 * longest earlier prefix that ends on a block boundary; the prompt's order is system instruction,
 * tools, then contents. Entries never expire.
 */
export class GeminiBillingFake extends LoopbackFake {
  protected handle(req: LoopbackRequest, body: Body, res: ServerResponse): void {
    const model = geminiModelOf(req);
    if (!model) return sendGemini(res, 404, geminiError(404, 'NOT_FOUND', req.url));
    expectGeminiStream(req, res);
    const problem = geminiProblem(req.headers, body, this.options.apiKey);
    if (problem)
      return sendGemini(res, problem.code, geminiError(problem.code, problem.status, problem.message));
    const contents = body.contents as Body[];
    const blocks: Body[] = [];
    for (const part of (body.systemInstruction?.parts ?? []) as Body[]) blocks.push({ system: part });
    for (const tool of (body.tools ?? []) as Body[])
      for (const declaration of (tool.functionDeclarations ?? []) as Body[])
        blocks.push({ tool: declaration });
    for (const content of contents ?? [])
      for (const part of content.parts as Body[]) blocks.push({ [content.role]: part });
    const measured = blocks.map((block) => ({
      canonical: JSON.stringify(block),
      tokens: tokensWithImages(Object.values(block)[0], geminiImageData, geminiImageTokens),
    }));
    const prefix = prefixes(measured);
    const total = prefix.at(-1)?.tokens ?? 0;
    const min = this.options.minCacheTokens ?? 2048;
    let cached = 0;
    for (let j = prefix.length - 1; j >= 0; j--) {
      if (prefix[j].tokens < min) break;
      if (this.cache.has(prefix[j].hash)) {
        cached = prefix[j].tokens;
        break;
      }
    }
    for (const entry of prefix) if (entry.tokens >= min) this.cache.set(entry.hash, entry.tokens);
    const call = this.calls.length;
    const next = this.options.next(call, body);
    const parts = [{ functionCall: { name: next.name, args: next.args } }];
    const usage: BilledUsage = {
      uncached: total - cached,
      cacheWrite: 0,
      cacheRead: cached,
      output: approxTokens(parts),
      prompt: total,
    };
    this.calls.push({ body, usage });
    sendGemini(res, 200, {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: total,
        ...(cached ? { cachedContentTokenCount: cached } : {}),
        candidatesTokenCount: usage.output,
        totalTokenCount: total + usage.output,
      },
      modelVersion: model,
      responseId: `resp_fake_${call + 1}`,
    });
  }
}
