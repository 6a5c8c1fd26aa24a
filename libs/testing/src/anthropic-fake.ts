import type { ServerResponse } from 'node:http';
import {
  anthropicError,
  anthropicMessage,
  anthropicProblem,
  expectAnthropicStream,
  sendAnthropic,
} from './providers/anthropic-wire';
import type { RedisTestContext } from './redis-test-context';
import { VigilStack } from './vigil-stack';
import { type LoopbackRequest, LoopbackServer, type WireBody as Body } from './providers/loopback-server';

export interface AnthropicFakeOptions {
  /** The API key the fake accepts in `x-api-key`. */
  apiKey: string;
  /** Calls (1-based, counted over the fake's life) that never get an answer. */
  hangOnCalls?: number[];
  /** Calls (1-based) whose answer waits until `release(call)`: a model call held in flight. */
  holdOnCalls?: number[];
}

/**
 * A loopback fake of Anthropic's Messages API (`POST /v1/messages`, refusing what the real API
 * refuses), for process tests that run a Worker on the real SDK. It plays a model
 * that works through a noop task: it reads which `noop_step` indexes the opening message lists
 * as completed and which of its own earlier calls succeeded, asks for the next one, and calls
 * `finish_task` when none is left. Usage is billed as the API documents it.
 */
export class AnthropicFake {
  calls = 0;
  readonly hung: ServerResponse[] = [];
  /** Every request body the fake accepted, in order (call n is `requests[n - 1]`). */
  readonly requests: Body[] = [];
  private readonly heldReplies = new Map<number, () => void>();
  private readonly server = new LoopbackServer((request, res) => this.handle(request, res));

  constructor(private readonly options: AnthropicFakeOptions) {}

  /** Starts listening; with `ctx`, the fake closes when the context does. */
  listen(ctx?: RedisTestContext): Promise<string> {
    ctx?.onClose(() => this.close());
    return this.server.listen();
  }

  /** The configuration that points an app's Anthropic provider at this fake (after `listen`). */
  env(): { ANTHROPIC_API_KEY: string; ANTHROPIC_BASE_URL: string } {
    return { ANTHROPIC_API_KEY: this.options.apiKey, ANTHROPIC_BASE_URL: this.server.url };
  }

  /** Listens (closing with `ctx`): a stack on `ctx` with `env` whose apps' Anthropic provider is this fake. */
  async stackOn(ctx: RedisTestContext, env: Record<string, string>): Promise<VigilStack> {
    await this.listen(ctx);
    return new VigilStack(ctx, { ...this.env(), ...env });
  }

  /** Answers a call held by `holdOnCalls`; false when that call is not (or no longer) held. */
  release(call: number): boolean {
    const answer = this.heldReplies.get(call);
    this.heldReplies.delete(call);
    answer?.();
    return answer !== undefined;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    for (const call of [...this.heldReplies.keys()]) this.release(call);
    await this.server.close();
  }

  private handle({ method, url, headers, body }: LoopbackRequest, res: ServerResponse): void {
    if (method !== 'POST' || url !== '/v1/messages')
      return sendAnthropic(res, 404, anthropicError('not_found_error', 'no such route'));
    expectAnthropicStream(body, res);
    const problem = anthropicProblem(headers, body, this.options.apiKey);
    if (problem) return sendAnthropic(res, problem.status, anthropicError(problem.type, problem.message));
    const call = ++this.calls;
    this.requests.push(body);
    if (this.options.holdOnCalls?.includes(call)) {
      this.heldReplies.set(call, () => sendAnthropic(res, 200, this.reply(body, call)));
      return;
    }
    if (this.options.hangOnCalls?.includes(call)) {
      this.hung.push(res);
      return;
    }
    sendAnthropic(res, 200, this.reply(body, call));
  }

  private reply(body: Body, call: number): Body {
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
    return anthropicMessage(
      [{ type: 'tool_use', id: `toolu_${call}`, ...use }],
      'tool_use',
      { input_tokens: 400, output_tokens: 20 },
      { id: `msg_fake_${call}`, model: body.model },
    );
  }
}
