import {
  catalogFile,
  HttpClient,
  ONE_TICKET_LISTED,
  RedisTestContext,
  unservedTicketTool,
} from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

/**
 * Creating a mission over HTTP with the operator's real catalog (VIGIL_TOOLS) and libs/tools'
 * gateway: every refusal is the status and sentence a user needs (docs/missions.md, "The
 * mission kind"). HTTP tools only, so nothing is spawned; nothing is called at creation.
 */
describe('POST /v1/tasks for a mission', () => {
  const catalogPath = catalogFile({
    mcpServers: {},
    httpTools: {
      create_ticket: unservedTicketTool(true),
      list_tickets: unservedTicketTool(false),
      delete_ticket: unservedTicketTool(true),
    },
    tenants: { acme: { allow: ['create_ticket', 'list_tickets'] } },
  });
  const ctx = new RedisTestContext('mission-api', {
    API_KEYS: 'acme:acme-key-123',
    VIGIL_TOOLS: catalogPath,
    TOOLS_ALLOW_PRIVATE: 'true',
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
  });
  let acme: HttpClient;

  beforeAll(async () => {
    acme = (await InProcessApi.start(ctx)).client('acme-key-123');
  });
  afterAll(() => ctx.close());

  const plan = [
    { tool: 'create_ticket', args: { title: 'renew the domain' } },
    { tool: 'finish_task', args: { summary: 'filed' } },
  ];
  const mission = (extra: Record<string, unknown> = {}, input: Record<string, unknown> = {}) => ({
    kind: 'mission',
    input: { goal: 'File a ticket to renew the domain', tools: ['create_ticket', 'list_tickets'], ...input },
    exitCriteria: [ONE_TICKET_LISTED],
    agent: { scripted: { plan } },
    ...extra,
  });
  const create = (body: unknown) => acme.post('/v1/tasks', body);

  it('creates a mission with its tools, criteria and scripted plan', async () => {
    const created = await create(mission());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'mission',
      status: 'queued',
      title: 'File a ticket to renew the domain',
      exitCriteria: [ONE_TICKET_LISTED],
      totalUnits: null,
    });
    // Not waiting on a write: an answer with a resolution is a 409 in words.
    const resolved = await acme.post(`/v1/tasks/${created.body.id}/input`, {
      text: 'TCK-1',
      resolution: 'done',
    });
    expect(resolved.status).toBe(409);
    expect(resolved.body.message).toMatch(/not waiting on an unresolved write/);
  });

  it("refuses a tool outside the catalog or the tenant's allow list (400 naming it)", async () => {
    const unknown = await create(mission({}, { tools: ['create_ticket', 'list_tickets', 'search_web'] }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^input\.tools: .*search_web/);
    const forbidden = await create(
      mission({}, { tools: ['create_ticket', 'list_tickets', 'delete_ticket'] }),
    );
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.message).toMatch(/^input\.tools: .*delete_ticket/);
  });

  it('refuses a mission without evidence, a check on a write, children_completed other than true and a plan naming other tools (400)', async () => {
    const noEvidence = await create(mission({ exitCriteria: [{ check: 'findings_count', expected: 1 }] }));
    expect(noEvidence.status).toBe(400);
    expect(noEvidence.body.message).toMatch(
      /a mission needs at least one exit criterion other than findings_count/,
    );
    const onWrite = await create(
      mission({
        exitCriteria: [{ ...ONE_TICKET_LISTED, args: { ...ONE_TICKET_LISTED.args, tool: 'create_ticket' } }],
      }),
    );
    expect(onWrite.status).toBe(400);
    expect(onWrite.body.message).toBe(
      'exitCriteria[0] (tool_result): args.tool create_ticket is a write; a check may only call read tools',
    );
    const children = await create(
      mission({ exitCriteria: [ONE_TICKET_LISTED, { check: 'children_completed', expected: false }] }),
    );
    expect(children.status).toBe(400);
    expect(children.body.message).toMatch(/children_completed\): expected must be true/);
    const badPlan = await create(
      mission({ agent: { scripted: { plan: [{ tool: 'delete_ticket', args: {} }] } } }),
    );
    expect(badPlan.status).toBe(400);
    expect(badPlan.body.message).toMatch(
      /^agent\.scripted\.plan\[0\]: delete_ticket is neither one of the mission's tools/,
    );
  });

  it('is a 422 offline without a scripted plan', async () => {
    const offline = await create(mission({ agent: {} }));
    expect(offline.status).toBe(422);
    expect(offline.body).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'a mission needs a model key (ANTHROPIC_API_KEY or GEMINI_API_KEY) or agent.scripted.plan',
    });
  });
});
