import type { ServerResponse } from 'node:http';
import { type LoopbackRequest, LoopbackServer, type WireBody } from './loopback-server';

/**
 * A loopback fake of one model provider's API for wire tests: the subclass routes and refuses as
 * the real API does, logs what it accepts for a reply in `requests`, and hands the reply to the
 * test's `answer` (until a test sets one, `unanswered`). `reset` forgets the log and the answer.
 */
export abstract class WireFake<Logged extends LoopbackRequest = LoopbackRequest> {
  requests: Logged[] = [];
  answer: (body: WireBody, res: ServerResponse) => void = (_body, res) => this.unanswered(res);
  private readonly server = new LoopbackServer((request, res) => this.receive(request, res));

  constructor(readonly apiKey: string) {}

  listen(): Promise<string> {
    return this.server.listen();
  }

  get baseUrl(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  reset(): void {
    this.requests = [];
    this.answer = (_body, res) => this.unanswered(res);
  }

  protected abstract unanswered(res: ServerResponse): void;

  protected abstract receive(request: LoopbackRequest, res: ServerResponse): void;
}
