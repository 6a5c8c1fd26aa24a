import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Body = Record<string, any>;

export interface AnthropicFakeOptions {
  /** The API key the fake accepts in `x-api-key`. */
  apiKey: string;
  /** Calls (1-based, counted over the fake's life) that never get an answer. */
  hangOnCalls?: number[];
}

/**
 * A loopback fake of Anthropic's Messages API (`POST /v1/messages`, `x-api-key`,
 * `anthropic-version`), for process tests that run a Worker on the real SDK. It plays a model
 * that works through a noop task: it reads which `noop_step` indexes the opening message lists
 * as completed and which of its own earlier calls succeeded, asks for the next one, and calls
 * `finish_task` when none is left. Usage is billed as the API documents it.
 */
export class AnthropicFake {
  private server?: Server;
  calls = 0;
  readonly hung: ServerResponse[] = [];

  constructor(private readonly options: AnthropicFakeOptions) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/messages')
        return this.send(res, 404, this.error('not_found_error', 'no such route'));
      if (req.headers['x-api-key'] !== this.options.apiKey)
        return this.send(res, 401, this.error('authentication_error', 'invalid x-api-key'));
      if (!req.headers['anthropic-version'])
        return this.send(res, 400, this.error('invalid_request_error', 'anthropic-version required'));
      const body = JSON.parse(raw) as Body;
      const call = ++this.calls;
      if (this.options.hangOnCalls?.includes(call)) {
        this.hung.push(res);
        return;
      }
      this.send(res, 200, this.reply(body));
    });
  }

  private reply(body: Body): Body {
    const messages = body.messages as Body[];
    const opening = JSON.stringify(messages[0]?.content ?? '');
    const total = Number(/Completed steps \(\d+ of (\d+)\)/.exec(opening)?.[1] ?? 0);
    const done = new Set(
      [...(/Completed steps[^.]*\./.exec(opening)?.[0] ?? '').matchAll(/step:(\d+)/g)].map((m) =>
        Number(m[1]),
      ),
    );
    for (let i = 1; i < messages.length; i++) {
      for (const block of messages[i].content as Body[]) {
        if (block.type !== 'tool_result' || block.is_error) continue;
        const use = (messages[i - 1].content as Body[]).find(
          (b) => b.type === 'tool_use' && b.id === block.tool_use_id,
        );
        if (use?.name === 'noop_step') done.add(Number(use.input.index));
      }
    }
    const next = Array.from({ length: total }, (_, i) => i).find((i) => !done.has(i));
    const use =
      next === undefined
        ? { name: 'finish_task', input: { summary: 'every step is done' } }
        : { name: 'noop_step', input: { index: next } };
    return {
      id: `msg_fake_${this.calls}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'tool_use', id: `toolu_${this.calls}`, ...use }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 400, output_tokens: 20 },
    };
  }

  private error(type: string, message: string): Body {
    return { type: 'error', error: { type, message } };
  }

  private send(res: ServerResponse, status: number, json: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
    res.end(JSON.stringify(json));
  }
}
