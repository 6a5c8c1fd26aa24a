import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type CatalogToolGateway, IDEMPOTENCY_META_KEY } from '@vigil/tools';
import { httpServer, testGateway } from '@vigil/testing';

/**
 * A real MCP server over streamable HTTP (the SDK's Server and StreamableHTTPServerTransport, in
 * this process, stateless): headers filled from `${VAR}`, the idempotency key in `_meta` and in
 * the argument the catalog names, a lookup that finds the write (docs/missions.md, "Tools from
 * outside").
 */
describe('MCP over streamable HTTP', () => {
  const leads = new Map<string, { id: string; name: string }>();
  const seen: { headers: IncomingHttpHeaders[]; meta: unknown[] } = { headers: [], meta: [] };
  let http: HttpServer;
  let gateway: CatalogToolGateway;
  const signal = new AbortController().signal;

  function mcpServer(): Server {
    const server = new Server({ name: 'crm', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'create_lead',
          description: 'Creates a lead',
          inputSchema: {
            type: 'object',
            properties: { name: { type: 'string' }, externalId: { type: 'string' } },
            required: ['name', 'externalId'],
          },
        },
        {
          name: 'find_lead',
          description: 'Finds a lead by external id',
          inputSchema: {
            type: 'object',
            properties: { externalId: { type: 'string' } },
            required: ['externalId'],
          },
          annotations: { readOnlyHint: true },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      seen.meta.push(request.params._meta);
      const args = request.params.arguments as Record<string, string>;
      if (request.params.name === 'create_lead') {
        const lead = { id: `lead-${leads.size + 1}`, name: args.name };
        leads.set(args.externalId, lead);
        return { content: [{ type: 'text', text: JSON.stringify(lead) }], structuredContent: lead };
      }
      const lead = leads.get(args.externalId);
      return { content: [{ type: 'text', text: JSON.stringify(lead ? { lead } : {}) }] };
    });
    return server;
  }

  beforeAll(async () => {
    http = httpServer((req, res) => {
      seen.headers.push(req.headers);
      // Stateless: one server and transport per request, as the SDK's examples do it.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = mcpServer();
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    gateway = testGateway(
      {
        mcpServers: {
          crm: {
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { Authorization: 'Bearer ${VIGIL_TEST_CRM_TOKEN}' },
            writes: {
              create_lead: {
                idempotencyArgument: 'externalId',
                keyArguments: ['name'],
                lookup: {
                  tool: 'find_lead',
                  arguments: { externalId: '{{idempotencyKey}}' },
                  found: '/lead/id',
                },
              },
            },
          },
        },
        tenants: { acme: { allow: ['crm'] } },
      },
      { env: { VIGIL_TEST_CRM_TOKEN: 'crm-token-1234' } },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => http.close(resolve));
  });

  it('lists and calls tools with the catalog headers, the idempotency key in _meta and the named argument', async () => {
    const tools = await gateway.toolsFor('acme', ['crm'], signal);
    expect(tools.map((tool) => [tool.catalogName, tool.effect, tool.hasLookup])).toEqual([
      ['crm.create_lead', 'write', true],
      ['crm.find_lead', 'read', false],
    ]);
    const create = tools[0];
    const key = 'tsk_9:crm.create_lead:abc';
    await expect(create.lookup!({ name: 'Ada' }, { signal, idempotencyKey: key })).resolves.toBeNull();
    // The model gives only `name`; Vigil supplies the argument that carries the key.
    const created = await create.call({ name: 'Ada' }, { signal, idempotencyKey: key });
    expect(created.raw).toMatchObject({ structuredContent: { id: 'lead-1', name: 'Ada' } });
    expect(leads.get(key)).toEqual({ id: 'lead-1', name: 'Ada' });
    expect(seen.meta.at(-1)).toMatchObject({ [IDEMPOTENCY_META_KEY]: key });
    expect(seen.headers.every((headers) => headers.authorization === 'Bearer crm-token-1234')).toBe(true);
    // found reads the JSON of the text part when the result has no structuredContent.
    await expect(create.lookup!({ name: 'Ada' }, { signal, idempotencyKey: key })).resolves.toBe('lead-1');
    // keyArguments: only `name` makes the logical step, not the key argument Vigil adds.
    expect(create.stepKey({ name: 'Ada', externalId: 'x' })).toBe(create.stepKey({ name: 'Ada' }));
    expect(create.stepKey({ name: 'Bob' })).not.toBe(create.stepKey({ name: 'Ada' }));
  });

  it("carries the call's traceparent in _meta and as the HTTP header, only on the call that has one", async () => {
    const [, find] = await gateway.toolsFor('acme', ['crm'], signal);
    const traceparent = `00-${'c3'.repeat(16)}-${'d4'.repeat(8)}-01`;
    await find.call({ externalId: 'nobody' }, { signal, traceparent });
    expect(seen.meta.at(-1)).toMatchObject({ traceparent });
    const traced = seen.headers.filter((headers) => headers.traceparent === traceparent);
    expect(traced).toHaveLength(1);
    await find.call({ externalId: 'nobody' }, { signal });
    expect(seen.meta.at(-1)).toBeUndefined();
    expect(seen.headers.at(-1)!.traceparent).toBeUndefined();
  });
});

describe('MCP over streamable HTTP, a stateful server that restarts', () => {
  const signal = new AbortController().signal;

  /** A session-keeping server: a restart forgets every session, as a redeploy does. */
  function start(port: number): Promise<HttpServer> {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const http = httpServer((req, res) => {
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known) return void known.handleRequest(req, res);
      if (typeof id === 'string') {
        res.statusCode = 404;
        return void res.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
        );
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => void sessions.set(session, transport),
      });
      const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'echo', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, () => ({
        content: [{ type: 'text', text: 'echoed' }],
      }));
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    return new Promise((resolve) => http.listen(port, '127.0.0.1', () => resolve(http)));
  }

  it('fails the first call after the restart (its session is gone) and connects afresh on the next', async () => {
    let http = await start(0);
    const { port } = http.address() as AddressInfo;
    const gateway = testGateway({
      mcpServers: { echo: { url: `http://127.0.0.1:${port}/mcp` } },
      tenants: { acme: { allow: ['echo'] } },
    });
    try {
      const [echo] = await gateway.toolsFor('acme', ['echo.echo'], signal);
      await expect(echo.call({}, { signal })).resolves.toMatchObject({ text: 'echoed' });
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      http = await start(port);
      await expect(echo.call({}, { signal })).rejects.toThrow(/^echo\.echo: .*(404|fetch failed)/);
      await expect(echo.call({}, { signal })).resolves.toMatchObject({ text: 'echoed' });
    } finally {
      await gateway.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
