import { createHash, type Hash } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback fakes of the Messages API and of Gemini's generateContent that bill usage the way each
 * provider documents it, prompt caching included, for tests and the prompts bench to measure what
 * the runtime's prompts cost through the real SDKs. Not models: what they answer comes from `next`.
 *
 * Token counting (both fakes): a prompt is a sequence of blocks — for Anthropic each tool, each
 * system text block and each message content block, in that order (the order the API builds its
 * cache prefix in); for Gemini the system instruction's parts, each function declaration, then
 * each part of `contents`. A block costs ceil(characters of its JSON / 4) tokens (`cache_control`
 * left out), a documented approximation of a BPE tokenizer, not the real one. Output is the
 * reply's content the same way.
 */
type Body = Record<string, any>;

export const approxTokens = (value: unknown): number =>
  Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4);

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
  private server?: Server;
  readonly calls: BilledCall[] = [];
  protected readonly cache = new Map<string, number>();

  constructor(protected readonly options: FakeOptions) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => this.receive(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Forgets the cache (a new process of the provider's, or five idle minutes). */
  clearCache(): void {
    this.cache.clear();
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      try {
        this.handle(req, JSON.parse(raw || '{}') as Body, res);
      } catch (error) {
        this.send(res, 500, { error: String(error) });
      }
    });
  }

  protected abstract handle(req: IncomingMessage, body: Body, res: ServerResponse): void;

  protected send(res: ServerResponse, status: number, json: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
    res.end(JSON.stringify(json));
  }
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
  protected handle(req: IncomingMessage, body: Body, res: ServerResponse): void {
    if (req.method !== 'POST' || req.url !== '/v1/messages')
      return this.send(res, 404, { type: 'error', error: { type: 'not_found_error', message: req.url } });
    if (req.headers['x-api-key'] !== this.options.apiKey)
      return this.send(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'key' } });
    const problem = invalidAnthropic(body);
    if (problem)
      return this.send(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: problem },
      });
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
      return this.send(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'at most 4 blocks with cache_control' },
      });
    const measured = blocks.map((block) => {
      const plain = withoutCacheControl(block);
      return { canonical: JSON.stringify(plain), tokens: approxTokens({ ...plain, role: undefined }) };
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
    this.send(res, 200, {
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

/** The documented rules the real API enforces: alternating roles, every tool_use answered first thing next turn. */
function invalidAnthropic(body: Body): string | undefined {
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number')
    return 'model and max_tokens required';
  const messages = body.messages as Body[];
  if (!Array.isArray(messages) || messages.length === 0 || messages[0].role !== 'user') return 'bad messages';
  for (const [i, m] of messages.entries()) {
    if (i > 0 && m.role === messages[i - 1].role) return `roles must alternate (messages.${i})`;
    const blocks = m.content as Body[];
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: empty content`;
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const next = (messages[i + 1]?.content ?? []) as Body[];
    const results = next.slice(0, uses.length);
    if (
      uses.length &&
      (results.some((b) => b.type !== 'tool_result') ||
        uses.some((id) => !results.some((b) => b.tool_use_id === id)))
    )
      return `messages.${i}: tool_use ids without tool_result blocks immediately after`;
    const answered = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);
    const asked = ((messages[i - 1]?.content ?? []) as Body[])
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.id as string);
    if (answered.some((id) => !asked.includes(id)))
      return `messages.${i}: tool_result without a tool_use before it`;
  }
  return undefined;
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
  protected handle(req: IncomingMessage, body: Body, res: ServerResponse): void {
    const route = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !route)
      return this.send(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: req.url } });
    if (req.headers['x-goog-api-key'] !== this.options.apiKey)
      return this.send(res, 403, {
        error: { code: 403, status: 'PERMISSION_DENIED', message: 'API key not valid.' },
      });
    const contents = body.contents as Body[];
    for (const [i, content] of (contents ?? []).entries()) {
      const calls = (content.parts as Body[]).filter((p) => p.functionCall).length;
      const responses = ((contents[i + 1]?.parts ?? []) as Body[]).filter((p) => p.functionResponse).length;
      if (calls && responses !== calls)
        return this.send(res, 400, {
          error: {
            code: 400,
            status: 'INVALID_ARGUMENT',
            message: 'function response parts must match function call parts',
          },
        });
    }
    const blocks: Body[] = [];
    for (const part of (body.systemInstruction?.parts ?? []) as Body[]) blocks.push({ system: part });
    for (const tool of (body.tools ?? []) as Body[])
      for (const declaration of (tool.functionDeclarations ?? []) as Body[])
        blocks.push({ tool: declaration });
    for (const content of contents ?? [])
      for (const part of content.parts as Body[]) blocks.push({ [content.role]: part });
    const measured = blocks.map((block) => ({
      canonical: JSON.stringify(block),
      tokens: approxTokens(Object.values(block)[0]),
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
    this.send(res, 200, {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: total,
        ...(cached ? { cachedContentTokenCount: cached } : {}),
        candidatesTokenCount: usage.output,
        totalTokenCount: total + usage.output,
      },
      modelVersion: route[1],
      responseId: `resp_fake_${call + 1}`,
    });
  }
}
