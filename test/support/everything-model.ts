import type { NextToolCall } from '@vigil/testing';

type Body = Record<string, any>;

/** What a model request offered and what came back so far, read from either wire format. */
export interface SeenRequest {
  /** Names of the offered tools, in the order sent. */
  offered: string[];
  /** The results the runtime answered the model's earlier calls with, oldest first. */
  results: { name: string; text: string; isError: boolean }[];
}

export const ECHO_MESSAGE = 'vigil over the wire';
export const FINDING_TITLE = 'The echo tool answered';
/** A tool of the catalog the tenant may not use: never offered, so a call to it must be refused. */
export const FORBIDDEN_TOOL = 'create_ticket';

const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map((part: Body) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : JSON.stringify(value);

/** Anthropic's Messages API: `tools[].name`, `tool_use` blocks answered by `tool_result` blocks. */
export function seenByAnthropic(body: Body): SeenRequest {
  const names = new Map<string, string>();
  const results: SeenRequest['results'] = [];
  for (const message of (body.messages ?? []) as Body[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Body[]) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
      if (block.type === 'tool_result')
        results.push({
          name: names.get(block.tool_use_id) ?? '?',
          text: textOf(block.content),
          isError: block.is_error === true,
        });
    }
  }
  return { offered: ((body.tools ?? []) as Body[]).map((tool) => tool.name as string), results };
}

/** Gemini's generateContent: `functionDeclarations[].name`, `functionResponse` parts. */
export function seenByGemini(body: Body): SeenRequest {
  const results: SeenRequest['results'] = [];
  for (const content of (body.contents ?? []) as Body[])
    for (const part of (content.parts ?? []) as Body[]) {
      const response = part.functionResponse as Body | undefined;
      if (!response) continue;
      const payload = (response.response ?? {}) as Body;
      results.push({
        name: response.name as string,
        text: textOf(payload.error ?? payload.result ?? payload),
        isError: payload.error !== undefined,
      });
    }
  const declarations = ((body.tools ?? []) as Body[]).flatMap(
    (tool) => (tool.functionDeclarations ?? []) as Body[],
  );
  return { offered: declarations.map((declaration) => declaration.name as string), results };
}

/**
 * A model working through the mission, deciding from what it was sent, not from a script of call
 * numbers: it first reaches for a tool it was not offered (as a confused model might), then calls
 * the server's echo tool among those it was offered, records what the echo said as a finding, and
 * finishes. Each request it saw is kept for the test to inspect.
 */
export function everythingModel(read: (body: Body) => SeenRequest): {
  next: NextToolCall;
  seen: SeenRequest[];
} {
  const seen: SeenRequest[] = [];
  const next: NextToolCall = (_call, body) => {
    const request = read(body);
    seen.push(request);
    const last = (name: string) => request.results.filter((result) => result.name === name).at(-1);
    const echo = request.offered.find((name) => name.endsWith('__echo'));
    if (!last(FORBIDDEN_TOOL)) return { name: FORBIDDEN_TOOL, args: { title: 'should never be filed' } };
    const echoed = echo ? last(echo) : undefined;
    if (echo && (!echoed || echoed.isError)) return { name: echo, args: { message: ECHO_MESSAGE } };
    if (!last('record_finding'))
      return { name: 'record_finding', args: { title: FINDING_TITLE, body: echoed?.text ?? 'no echo' } };
    return { name: 'finish_task', args: { summary: 'The echo tool answered; the finding is recorded.' } };
  };
  return { next, seen };
}
