import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { type LoopbackRequest, sendJson, type WireBody } from './loopback-server';
import { isStreamed, markStreamed, openSse, pieces, type WireSseEvent, writeSse } from './sse-wire';
import { WireFake } from './wire-fake';

/** What a refused Messages API request is answered with. */
export interface AnthropicProblem {
  status: number;
  type: string;
  message: string;
}

/**
 * The documented rules the Messages API enforces, checked the way it checks them: the key and
 * version headers, then the body — `model` and `max_tokens`, roles alternating from `user`, no
 * empty content or text block, every `tool_use` answered by `tool_result` blocks first thing in
 * the next message, and no `tool_result` without its `tool_use` just before.
 */
export function anthropicProblem(
  headers: IncomingHttpHeaders,
  body: WireBody,
  apiKey: string,
): AnthropicProblem | undefined {
  if (headers['x-api-key'] !== apiKey)
    return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
  if (!headers['anthropic-version'])
    return { status: 400, type: 'invalid_request_error', message: 'anthropic-version required' };
  const message = invalidBody(body);
  return message ? { status: 400, type: 'invalid_request_error', message } : undefined;
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** The documented bound of one image: 5 MB (docs.anthropic.com, "Vision"). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** A block inside a tool_result: text, or an image with a base64 source of a supported type. */
function invalidImage(block: WireBody): string | undefined {
  if (block.type === 'text') return block.text ? undefined : 'empty text block in tool_result';
  if (block.type !== 'image') return `tool_result content block type ${String(block.type)} not allowed`;
  const source = block.source as WireBody | undefined;
  if (source?.type !== 'base64' || !IMAGE_TYPES.includes(source.media_type as string))
    return 'image source must be base64 with media_type image/jpeg, image/png, image/gif or image/webp';
  if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(source.data))
    return 'image data is not base64';
  if (source.data.length > MAX_IMAGE_BYTES) return 'image exceeds 5 MB maximum';
  return undefined;
}

function invalidBody(body: WireBody): string | undefined {
  if (typeof body.model !== 'string' || typeof body.max_tokens !== 'number')
    return 'model and max_tokens required';
  const messages = body.messages as WireBody[];
  if (!Array.isArray(messages) || messages.length === 0 || messages[0].role !== 'user') return 'bad messages';
  for (const [i, m] of messages.entries()) {
    if (i > 0 && m.role === messages[i - 1].role) return `roles must alternate (messages.${i})`;
    const blocks = m.content as WireBody[];
    if (typeof blocks === 'string') continue;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: empty content`;
    if (blocks.some((b) => b.type === 'text' && !b.text)) return `messages.${i}: empty text block`;
    const images = blocks.flatMap((b) =>
      b.type === 'tool_result' && Array.isArray(b.content) ? b.content : [],
    );
    const image = images.map(invalidImage).find(Boolean);
    if (image) return `messages.${i}: ${image}`;
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const next = (messages[i + 1]?.content ?? []) as WireBody[];
    const results = Array.isArray(next) ? next.slice(0, uses.length) : [];
    if (
      uses.length &&
      (results.some((b) => b.type !== 'tool_result') ||
        uses.some((id) => !results.some((b) => b.tool_use_id === id)))
    )
      return `messages.${i}: tool_use ids without tool_result blocks immediately after`;
    const answered = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);
    const before = messages[i - 1]?.content;
    const asked = (Array.isArray(before) ? (before as WireBody[]) : [])
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.id as string);
    if (answered.some((id) => !asked.includes(id)))
      return `messages.${i}: tool_result without a tool_use before it`;
  }
  return undefined;
}

export const anthropicError = (type: string, message: string): WireBody => ({
  type: 'error',
  error: { type, message },
});

/** A Messages API reply: an assistant message with `content`, as the API shapes it. */
export function anthropicMessage(
  content: unknown[],
  stopReason: string,
  usage: WireBody = { input_tokens: 120, output_tokens: 30 },
  fields: WireBody = {},
): WireBody {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
    ...fields,
  };
}

/**
 * The events the Messages API streams for `message` (`"stream": true`), as documented:
 * `message_start` (the message with no content yet, its input usage), a `ping`, for each content
 * block `content_block_start`, its `content_block_delta`s (`text_delta` pieces of a text block,
 * `input_json_delta` pieces of a tool call's input JSON) and `content_block_stop`, then
 * `message_delta` (stop reason, output tokens) and `message_stop`.
 */
export function anthropicStreamEvents(message: WireBody, pieceChars = 8): WireSseEvent[] {
  const { content = [], usage = {}, ...rest } = message;
  const event = (type: string, data: WireBody): WireSseEvent => ({ event: type, data: { type, ...data } });
  const events: WireSseEvent[] = [
    event('message_start', {
      message: {
        ...rest,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens ?? 0) },
      },
    }),
    event('ping', {}),
  ];
  (content as WireBody[]).forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of pieces(block.text as string, pieceChars))
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else if (block.type === 'tool_use') {
      const { input, ...head } = block;
      events.push(event('content_block_start', { index, content_block: { ...head, input: {} } }));
      for (const partial_json of pieces(JSON.stringify(input ?? {}), pieceChars))
        events.push(
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
        );
    } else {
      events.push(event('content_block_start', { index, content_block: block }));
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: rest.stop_reason ?? 'end_turn', stop_sequence: rest.stop_sequence ?? null },
      usage: { output_tokens: usage.output_tokens ?? 0 },
    }),
    event('message_stop', {}),
  );
  return events;
}

/** Starts a streamed Messages API reply (headers as the API sends them); write its events with `writeSse`. */
export function openAnthropicStream(res: ServerResponse): void {
  openSse(res, { 'request-id': 'req_fake' });
}

/**
 * Writes a Messages API response (with the `request-id` header the SDK reads). A message
 * answering a request that asked for a stream (`expectAnthropicStream`) goes out as its events.
 */
export function sendAnthropic(
  res: ServerResponse,
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
): void {
  const message = json as WireBody;
  if (status === 200 && isStreamed(res) && message?.type === 'message') {
    openSse(res, { 'request-id': 'req_fake', ...headers });
    writeSse(res, anthropicStreamEvents(message));
    res.end();
    return;
  }
  sendJson(res, status, json, { 'request-id': 'req_fake', ...headers });
}

/** Notes that the request asked for a stream, so `sendAnthropic` streams its answer. */
export function expectAnthropicStream(body: WireBody, res: ServerResponse): void {
  if (body.stream === true) markStreamed(res);
}

/**
 * A loopback fake of the Messages API (`POST /v1/messages`) that refuses what the real API refuses
 * (`anthropicProblem`), logs every request it routes, and leaves the answer to the test: `answer`,
 * by default a 500. `reset` forgets the log and the answer.
 */
export class AnthropicWireFake extends WireFake {
  protected unanswered(res: ServerResponse): void {
    sendAnthropic(res, 500, anthropicError('api_error', 'no answer set'));
  }

  protected receive(request: LoopbackRequest, res: ServerResponse): void {
    if (request.method !== 'POST' || request.url !== '/v1/messages')
      return sendAnthropic(res, 404, anthropicError('not_found_error', `no route ${request.url}`));
    this.requests.push(request);
    expectAnthropicStream(request.body, res);
    const problem = anthropicProblem(request.headers, request.body, this.apiKey);
    if (problem) return sendAnthropic(res, problem.status, anthropicError(problem.type, problem.message));
    this.answer(request.body, res);
  }
}
