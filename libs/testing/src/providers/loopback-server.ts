import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { httpServer } from '../http-server';
import type { AddressInfo } from 'node:net';

export type WireBody = Record<string, any>;

/** One request as a loopback fake receives it, its JSON body parsed. */
export interface LoopbackRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: WireBody;
}

/**
 * An HTTP server on 127.0.0.1, on a port the OS picks, that hands each request with its JSON body
 * parsed to `handle`: the ground the provider wire fakes stand on. A body that is not JSON, or a
 * `handle` that throws, is answered 500 with the error.
 */
export class LoopbackServer {
  private server?: Server;

  constructor(private readonly handle: (request: LoopbackRequest, res: ServerResponse) => void) {}

  async listen(): Promise<string> {
    this.server = httpServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        try {
          const body = JSON.parse(raw || '{}') as WireBody;
          this.handle({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }, res);
        } catch (error) {
          sendJson(res, 500, { error: String(error) });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  /** `http://127.0.0.1:<port>` (after `listen`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(json));
}
