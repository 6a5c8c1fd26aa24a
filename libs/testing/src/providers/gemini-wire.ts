import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { type LoopbackRequest, sendJson, type WireBody } from './loopback-server';
import { isStreamed, markStreamed, openSse, pieces, type WireSseEvent, writeSse } from './sse-wire';
import { WireFake } from './wire-fake';

/** What a refused generateContent request is answered with. */
export interface GeminiProblem {
  code: number;
  status: string;
  message: string;
}

const GENERATE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent\?alt=sse)$/;

/**
 * The documented rules generateContent enforces, checked the way it checks them: the key header,
 * then `contents` — present, roles `user` or `model`, parts never empty, and each function call
 * turn followed by a `user` turn with as many function responses.
 */
export function geminiProblem(
  headers: IncomingHttpHeaders,
  body: WireBody,
  apiKey: string,
): GeminiProblem | undefined {
  if (headers['x-goog-api-key'] !== apiKey)
    return {
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'API key not valid. Please pass a valid API key.',
    };
  const message = invalidContents(body.contents as WireBody[]);
  return message ? { code: 400, status: 'INVALID_ARGUMENT', message } : undefined;
}

function invalidContents(contents: WireBody[]): string | undefined {
  if (!Array.isArray(contents) || contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const [i, content] of contents.entries()) {
    if (content.role !== 'user' && content.role !== 'model')
      return `contents[${i}].role must be user or model`;
    if (!Array.isArray(content.parts) || content.parts.length === 0)
      return `contents[${i}].parts must not be empty`;
    const inline = (content.parts as WireBody[]).flatMap((p) => [
      ...(p.inlineData ? [p.inlineData as WireBody] : []),
      ...((p.functionResponse?.parts ?? []) as WireBody[]).map((r) => r.inlineData as WireBody),
    ]);
    if (inline.some((d) => typeof d?.mimeType !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(String(d?.data))))
      return `contents[${i}]: inline data needs a mimeType and base64 data`;
    const calls = content.parts.filter((p: WireBody) => p.functionCall).length;
    if (calls === 0) continue;
    const responses = (contents[i + 1]?.parts ?? []).filter((p: WireBody) => p.functionResponse).length;
    if (contents[i + 1]?.role !== 'user' || responses !== calls)
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
  }
  return undefined;
}

export const geminiError = (code: number, status: string, message: string): WireBody => ({
  error: { code, message, status },
});

/** A generateContent reply: one candidate with `parts`, and its usage. */
export function geminiReply(
  parts: unknown[],
  usage = { promptTokenCount: 90, candidatesTokenCount: 12 },
): WireBody {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount },
    modelVersion: 'gemini-test',
    responseId: 'resp_fake',
  };
}

/**
 * The chunks `streamGenerateContent?alt=sse` sends for `reply`, each a GenerateContentResponse:
 * the candidate's text parts in pieces of `pieceChars`, each function call whole in its own
 * chunk, every chunk with the usage so far (the prompt's), the last with the finish reason and
 * the whole usage. A reply without candidates (a blocked prompt) is one chunk.
 */
export function geminiStreamChunks(reply: WireBody, pieceChars = 8): WireBody[] {
  const candidate = (reply.candidates as WireBody[] | undefined)?.[0];
  if (!candidate) return [reply];
  const { content, finishReason, ...candidateRest } = candidate;
  const { usageMetadata: usage, candidates: _all, ...rest } = reply;
  const promptUsage = usage
    ? Object.fromEntries(
        Object.entries(usage as WireBody).filter(([name]) =>
          /^(prompt|cachedContent|toolUsePrompt)/.test(name),
        ),
      )
    : undefined;
  const parts: WireBody[] = [];
  for (const part of (content?.parts ?? []) as WireBody[]) {
    if (typeof part.text === 'string' && !part.thought && !part.thoughtSignature)
      for (const text of pieces(part.text, pieceChars)) parts.push({ text });
    else parts.push(part);
  }
  if (parts.length === 0) parts.push({ text: '' });
  return parts.map((part, i) => {
    const last = i === parts.length - 1;
    return {
      candidates: [
        {
          ...candidateRest,
          content: { role: content?.role ?? 'model', parts: [part] },
          ...(last && finishReason ? { finishReason } : {}),
        },
      ],
      ...((last ? usage : promptUsage) ? { usageMetadata: last ? usage : promptUsage } : {}),
      ...rest,
    };
  });
}

/** Starts a streamed reply; write its chunks with `writeGeminiChunks`. */
export function openGeminiStream(res: ServerResponse): void {
  openSse(res);
}

/** Writes chunks as Google's API does: `data: <json>` lines, separated by CRLF CRLF. */
export function writeGeminiChunks(res: ServerResponse, chunks: readonly WireBody[]): void {
  writeSse(
    res,
    chunks.map((data): WireSseEvent => ({ data })),
    '\r\n\r\n',
  );
}

/**
 * Writes a generateContent response with the content type Google's API sends; the answer to a
 * `streamGenerateContent` request (`expectGeminiStream`) goes out as its chunks.
 */
export function sendGemini(res: ServerResponse, status: number, json: unknown): void {
  if (status === 200 && isStreamed(res)) {
    openSse(res);
    writeGeminiChunks(res, geminiStreamChunks(json as WireBody));
    res.end();
    return;
  }
  sendJson(res, status, json, { 'content-type': 'application/json; charset=UTF-8' });
}

/** The model a generateContent request names in its path, or undefined for any other route. */
export function geminiModelOf(request: Pick<LoopbackRequest, 'method' | 'url'>): string | undefined {
  return request.method === 'POST' ? GENERATE.exec(request.url)?.[1] : undefined;
}

/** Notes a `streamGenerateContent` request, so `sendGemini` streams its answer. */
export function expectGeminiStream(request: Pick<LoopbackRequest, 'url'>, res: ServerResponse): boolean {
  const streamed = GENERATE.exec(request.url)?.[2] !== 'generateContent';
  if (streamed) markStreamed(res);
  return streamed;
}

/**
 * A loopback fake of `POST /v1beta/models/{model}:generateContent` that refuses what the real API
 * refuses (`geminiProblem`), logs every request it routes with the model it named, and leaves the
 * answer to the test: `answer`, by default a 500. `reset` forgets the log and the answer.
 */
export class GeminiWireFake extends WireFake<LoopbackRequest & { model: string }> {
  protected unanswered(res: ServerResponse): void {
    sendGemini(res, 500, geminiError(500, 'INTERNAL', 'no answer set'));
  }

  protected receive(request: LoopbackRequest, res: ServerResponse): void {
    const model = geminiModelOf(request);
    if (!model) return sendGemini(res, 404, geminiError(404, 'NOT_FOUND', `no route ${request.url}`));
    this.requests.push({ ...request, model });
    expectGeminiStream(request, res);
    const problem = geminiProblem(request.headers, request.body, this.apiKey);
    if (problem)
      return sendGemini(res, problem.code, geminiError(problem.code, problem.status, problem.message));
    this.answer(request.body, res);
  }
}
