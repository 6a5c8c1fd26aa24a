import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogToolGateway } from '../catalog-tool-gateway';
import { callReadTool } from '../read-tool-call';
import { testGateway } from '@vigil/testing';
import { ExternalTool, ToolCallError } from '../tool-gateway';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * HTTP tools against a local HTTP server (docs/missions.md, "Tools from outside"): URL
 * templating, body or query string, headers from `${VAR}`, the idempotency header, lookups, errors,
 * deadlines and the SSRF guard.
 */
describe('HTTP tools', () => {
  const seen: Seen[] = [];
  const tickets: { id: string; title: string; externalId: string }[] = [];
  let server: Server;
  let base: string;
  let gateway: CatalogToolGateway;
  const signal = new AbortController().signal;
  const env = { VIGIL_TEST_API_TOKEN: 'api-token-5678' };

  function catalog(url: string) {
    const input = {
      type: 'object',
      properties: {
        project: { type: 'string' },
        title: { type: 'string' },
        id: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'integer' },
      },
    };
    return {
      httpTools: {
        create_ticket: {
          description: 'Open a ticket',
          method: 'POST',
          url: `${url}/projects/{{project}}/tickets`,
          input: { ...input, required: ['project', 'title'] },
          headers: { Authorization: 'Bearer ${VIGIL_TEST_API_TOKEN}' },
          write: true,
          idempotencyHeader: 'Idempotency-Key',
          lookup: { method: 'GET', url: `${url}/tickets?externalId={{idempotencyKey}}`, found: '/data/0' },
          keyArguments: ['project', 'title'],
        },
        get_ticket: { description: 'Read a ticket', method: 'GET', url: `${url}/tickets/{{id}}`, input },
        list_tickets: { description: 'List tickets', method: 'GET', url: `${url}/tickets`, input },
        fail: { description: 'Fails', method: 'DELETE', url: `${url}/fail`, input },
        hang: { description: 'Never answers', method: 'GET', url: `${url}/hang`, input, timeoutMs: 300 },
        moved: { description: 'Redirects', method: 'GET', url: `${url}/moved`, input },
      },
      tenants: { acme: { allow: ['create_ticket', 'get_ticket', 'list_tickets', 'fail', 'hang', 'moved'] } },
    };
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const url = new URL(req.url!, 'http://x');
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && url.pathname.startsWith('/projects/')) {
          const ticket = {
            id: `T-${tickets.length + 1}`,
            title: (JSON.parse(body) as { title: string }).title,
            externalId: String(req.headers['idempotency-key']),
          };
          tickets.push(ticket);
          res.end(JSON.stringify(ticket));
        } else if (url.pathname === '/tickets') {
          const externalId = url.searchParams.get('externalId');
          res.end(
            JSON.stringify({
              data: tickets.filter((t) => externalId === null || t.externalId === externalId),
            }),
          );
        } else if (url.pathname.startsWith('/tickets/')) {
          res.end(JSON.stringify({ path: url.pathname }));
        } else if (url.pathname === '/fail') {
          res.statusCode = 503;
          res.end(
            JSON.stringify({
              error: 'down for maintenance',
              token: env.VIGIL_TEST_API_TOKEN,
              pad: 'p'.repeat(2000),
            }),
          );
        } else if (url.pathname === '/moved') {
          res.statusCode = 302;
          res.setHeader('location', 'http://169.254.169.254/latest/meta-data');
          res.end();
        } else if (url.pathname !== '/hang') {
          res.statusCode = 404;
          res.end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gateway = testGateway(catalog(base), { env, allowPrivate: true });
  });
  afterAll(async () => {
    await gateway.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function tool(name: string, from = gateway): Promise<ExternalTool> {
    const [found] = await from.toolsFor('acme', [name], signal);
    return found;
  }

  it('fills URL placeholders URL-encoded and sends the other arguments as the query string of a GET', async () => {
    const result = await (
      await tool('get_ticket')
    ).call({ id: 'a b/c', status: 'open', limit: 5 }, { signal });
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/tickets/a%20b%2Fc?status=open&limit=5',
      body: '',
    });
    expect(result.raw).toEqual({ path: '/tickets/a%20b%2Fc' });
    expect(result.text).toBe('{"path":"/tickets/a%20b%2Fc"}');
  });

  it('sends a write as a JSON body with the catalog headers and the idempotency key, found again by its lookup', async () => {
    const create = await tool('create_ticket');
    expect(create).toMatchObject({
      modelName: 'create_ticket',
      server: null,
      effect: 'write',
      hasLookup: true,
    });
    const args = { project: 'web', title: 'Broken login' };
    const key = 'tsk_1:create_ticket:1';
    await expect(create.lookup!(args, { signal, idempotencyKey: key })).resolves.toBeNull();
    const created = await create.call(args, { signal, idempotencyKey: key });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/projects/web/tickets' });
    expect(JSON.parse(request.body)).toEqual({ title: 'Broken login' });
    expect(request.headers).toMatchObject({
      authorization: 'Bearer api-token-5678',
      'idempotency-key': key,
      'content-type': 'application/json',
    });
    expect(created.raw).toEqual({ id: 'T-1', title: 'Broken login', externalId: key });
    await expect(create.lookup!(args, { signal, idempotencyKey: key })).resolves.toEqual(created.raw);
    await expect(create.lookup!(args, { signal, idempotencyKey: 'another-key' })).resolves.toBeNull();
    expect(create.stepKey({ title: 'Broken login', project: 'web' })).toBe(create.stepKey(args));
  });

  it("sends the call's traceparent with the call and its lookup, and none without one", async () => {
    const traceparent = `00-${'a1'.repeat(16)}-${'b2'.repeat(8)}-01`;
    const create = await tool('create_ticket');
    const args = { project: 'web', title: 'Traced' };
    await create.lookup!(args, { signal, idempotencyKey: 'traced-key', traceparent });
    expect(seen.at(-1)!.headers.traceparent).toBe(traceparent);
    await create.call(args, { signal, idempotencyKey: 'traced-key', traceparent });
    expect(seen.at(-1)!.headers.traceparent).toBe(traceparent);
    await (await tool('list_tickets')).call({}, { signal });
    expect(seen.at(-1)!.headers.traceparent).toBeUndefined();
  });

  it('sends no idempotency header with a read', async () => {
    await (await tool('list_tickets')).call({}, { signal, idempotencyKey: 'k' });
    expect(seen.at(-1)!.headers['idempotency-key']).toBeUndefined();
  });

  it('refuses arguments that break the input schema before any request', async () => {
    const count = seen.length;
    await expect((await tool('create_ticket')).call({ project: 'web' }, { signal })).rejects.toThrow(
      "create_ticket: the arguments do not match the tool's input schema: data must have required property 'title'",
    );
    await expect((await tool('get_ticket')).call({ limit: 'ten' }, { signal })).rejects.toThrow(
      'data/limit must be integer',
    );
    expect(seen.length).toBe(count);
  });

  it('turns a non-2xx answer into a ToolCallError with its status and a bounded excerpt, secrets scrubbed', async () => {
    const failure = (await tool('fail')).call({}, { signal });
    await expect(failure).rejects.toBeInstanceOf(ToolCallError);
    const message = await failure.then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toMatch(/^fail: HTTP 503 Service Unavailable: \{"error":"down for maintenance"/);
    expect(message).not.toContain('api-token-5678');
    expect(message).toContain('[redacted]');
    expect(message.length).toBeLessThan(700);
  });

  it('does not follow a redirect (it could lead past the guard)', async () => {
    await expect((await tool('moved')).call({}, { signal })).rejects.toThrow(/^moved: HTTP 302/);
  });

  it('ends a request past its deadline, and aborts one at once when the caller aborts', async () => {
    const started = Date.now();
    await expect((await tool('hang')).call({}, { signal })).rejects.toThrow(
      new ToolCallError('hang: no answer within 300 ms'),
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const list = await tool('hang');
    await expect(list.call({}, { signal: controller.signal })).rejects.toThrow(
      new ToolCallError('hang: aborted'),
    );
  });

  it('refuses private and loopback targets unless TOOLS_ALLOW_PRIVATE', async () => {
    const guarded = testGateway(catalog(base), { env, allowPrivate: false });
    const count = seen.length;
    await expect((await tool('list_tickets', guarded)).call({}, { signal })).rejects.toThrow(
      new ToolCallError(
        'list_tickets: the URL points to a private or loopback address (127.0.0.1); set TOOLS_ALLOW_PRIVATE=true to allow it',
      ),
    );
    const named = testGateway(catalog(base.replace('127.0.0.1', 'localhost')), { env, allowPrivate: false });
    await expect((await tool('list_tickets', named)).call({}, { signal })).rejects.toThrow(
      /private or loopback address \(localhost\)/,
    );
    expect(seen.length).toBe(count);
    await expect((await tool('list_tickets')).call({}, { signal })).resolves.toMatchObject({
      raw: { data: expect.any(Array) },
    });
  });

  it('calls a read tool for a check by its catalog name, and refuses a write without sending it', async () => {
    const read = await callReadTool(gateway, 'acme', 'list_tickets', {}, { signal });
    expect(read.raw).toMatchObject({ data: expect.any(Array) });
    const count = seen.length;
    await expect(
      callReadTool(gateway, 'acme', 'create_ticket', { project: 'p', title: 't' }, { signal }),
    ).rejects.toThrow('"create_ticket" is a write; a check may only call read tools');
    await expect(callReadTool(gateway, 'other', 'list_tickets', {}, { signal })).rejects.toThrow(
      'tool "list_tickets" is not allowed for tenant "other"',
    );
    expect(seen.length).toBe(count);
  });
});
