import type { IncomingHttpHeaders, Server } from 'node:http';
import { httpServer } from './http-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  status: number;
  at: number;
}

/** A real HTTP server on loopback that records every delivery and answers from a script. */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  /** Statuses to answer with, in order; once used up, every request gets 200. */
  answers: number[] = [];
  private server?: Server;

  async listen(port = 0): Promise<string> {
    this.server = httpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const status = this.answers.shift() ?? 200;
        this.received.push({
          path: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString(),
          status,
          at: Date.now(),
        });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  forMessage(messageId: string): ReceivedHook[] {
    return this.received.filter((hook) => hook.headers['vigil-message-id'] === messageId);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
