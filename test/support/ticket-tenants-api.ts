import { catalogFile, HttpClient, RedisTestContext, unservedTicketTool } from '@vigil/testing';
import { InProcessApi } from './in-process-api';

/** What a test reaches through `ticketTenantsApi`, once its beforeAll has run. */
export interface TicketTenantsApi {
  ctx: RedisTestContext;
  api: InProcessApi;
  /** Tenant acme: the two ticket tools allowed, and the conversation defaults given. */
  acme: HttpClient;
  /** Tenant globex: nothing allowed, so none of acme's tasks or tools. */
  globex: HttpClient;
}

/**
 * The API in this process for two tenants over the ticket tools (no server answers them: no
 * Worker runs), with no model key and no router model, so conversations route by the rules.
 * Registers its own beforeAll and afterAll.
 */
export function ticketTenantsApi(
  prefix: string,
  conversationDefaults: Record<string, unknown>,
): TicketTenantsApi {
  const catalogPath = catalogFile({
    mcpServers: {},
    httpTools: { create_ticket: unservedTicketTool(true), list_tickets: unservedTicketTool(false) },
    tenants: {
      acme: { allow: ['create_ticket', 'list_tickets'], conversationDefaults },
      globex: { allow: [] },
    },
  });
  const ctx = new RedisTestContext(prefix, {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    VIGIL_TOOLS: catalogPath,
    TOOLS_ALLOW_PRIVATE: 'true',
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
    ROUTER_MODEL: '',
  });
  const handle = { ctx } as TicketTenantsApi;
  beforeAll(async () => {
    handle.api = await InProcessApi.start(ctx);
    handle.acme = handle.api.client('acme-key-123');
    handle.globex = handle.api.client('globex-key-456');
  });
  afterAll(() => ctx.close());
  return handle;
}
