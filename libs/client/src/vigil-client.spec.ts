import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VigilApiError, VigilConnectionError } from './client-errors';
import { VigilClient } from './vigil-client';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A loopback HTTP server answering each request with the next handler. */
async function serve(handlers: Handler[]): Promise<{ url: string; server: Server; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push(request);
      const handler = handlers.shift();
      if (!handler) {
        response.writeHead(500).end();
        return;
      }
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

const json =
  (status: number, body: unknown): Handler =>
  (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

describe('VigilClient', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function clientFor(handlers: Handler[]) {
    const started = await serve(handlers);
    servers.push(started.server);
    return { client: new VigilClient({ baseUrl: `${started.url}/`, apiKey: 'key-1' }), seen: started.seen };
  }

  it('sends the key as a bearer token, the body as JSON and the query, and answers the parsed body', async () => {
    let received = '';
    const { client, seen } = await clientFor([
      (_request, body, response) => {
        received = body;
        json(201, { id: 'tsk_1', status: 'queued' })(_request, body, response);
      },
      json(200, { data: [] }),
    ]);
    const task = await client.tasks.create({ kind: 'noop', input: { steps: 2 } }, { idempotencyKey: 'k1' });
    expect(task).toEqual({ id: 'tsk_1', status: 'queued' });
    expect(JSON.parse(received)).toEqual({ kind: 'noop', input: { steps: 2 } });
    expect(seen[0].headers).toMatchObject({
      authorization: 'Bearer key-1',
      'content-type': 'application/json',
      'idempotency-key': 'k1',
    });
    await client.tasks.list({ status: 'running', limit: 5, archived: undefined });
    expect(seen[1].url).toBe('/v1/tasks?status=running&limit=5');
  });

  it('throws a VigilApiError carrying the status, the error, the message and the request', async () => {
    const { client } = await clientFor([
      json(404, { statusCode: 404, error: 'Not Found', message: 'task tsk_x not found' }),
      json(409, {
        statusCode: 409,
        error: 'Conflict',
        message: 'the task is completed; only paused tasks can be resumed',
        currentStatus: 'completed',
      }),
    ]);
    const missing = await client.tasks.get('tsk_x').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(VigilApiError);
    expect(missing).toMatchObject({
      status: 404,
      error: 'Not Found',
      message: 'task tsk_x not found',
      request: 'GET /v1/tasks/tsk_x',
    });
    const conflict = (await client.tasks.resume('tsk_1').catch((error: unknown) => error)) as VigilApiError;
    expect([conflict.status, conflict.currentStatus]).toEqual([409, 'completed']);
  });

  it('throws a VigilConnectionError naming the address and the code when nothing answers', async () => {
    const { server, url } = await serve([]);
    await new Promise((resolve) => server.close(resolve));
    const client = new VigilClient({ baseUrl: url, apiKey: 'key-1' });
    const error = await client.tasks.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VigilConnectionError);
    expect(error).toMatchObject({ baseUrl: url, code: 'ECONNREFUSED' });
  });

  it('follows events over HTTP and resumes with a Last-Event-ID header after the connection drops', async () => {
    const event = (id: string, type: string) =>
      `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, type, taskId: 'tsk_1', data: {} })}\n\n`;
    const { client, seen } = await clientFor([
      (_request, _body, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('retry: 1\n\n');
        response.write(event('1-0', 'task.started'));
        // The connection drops before the task ends.
        setTimeout(() => response.socket?.destroy(), 20);
      },
      (_request, _body, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(event('2-0', 'task.completed'));
      },
    ]);
    const types: string[] = [];
    for await (const frame of client.tasks.events('tsk_1', { maxDelayMs: 1 })) types.push(frame.type);
    expect(types).toEqual(['task.started', 'task.completed']);
    expect(seen.map((request) => [request.url, request.headers['last-event-id']])).toEqual([
      ['/v1/tasks/tsk_1/events', undefined],
      ['/v1/tasks/tsk_1/events', '1-0'],
    ]);
  });
});
