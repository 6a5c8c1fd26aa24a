import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { type LoopbackRequest, sendJson, type WireBody } from './loopback-server';
import { WireFake } from './wire-fake';

/** What a refused generateContent request is answered with. */
export interface GeminiProblem {
  code: number;
  status: string;
  message: string;
}

const GENERATE = /^\/v1beta\/models\/([^/:]+):generateContent$/;

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

/** Writes a generateContent response with the content type Google's API sends. */
export function sendGemini(res: ServerResponse, status: number, json: unknown): void {
  sendJson(res, status, json, { 'content-type': 'application/json; charset=UTF-8' });
}

/** The model a generateContent request names in its path, or undefined for any other route. */
export function geminiModelOf(request: Pick<LoopbackRequest, 'method' | 'url'>): string | undefined {
  return request.method === 'POST' ? GENERATE.exec(request.url)?.[1] : undefined;
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
    const problem = geminiProblem(request.headers, request.body, this.apiKey);
    if (problem)
      return sendGemini(res, problem.code, geminiError(problem.code, problem.status, problem.message));
    this.answer(request.body, res);
  }
}
