import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { ConfigError } from './env-parsers';
import { parseToolCatalog } from './tool-catalog.loader';
import { tenantLimitsOf } from './tool-catalog';

const FILE = '/x/tools.json';
const ENV = { CRM_TOKEN: 'crm-secret-value', FILES_ROOT: '/srv/work' };

const input = { type: 'object', properties: { title: { type: 'string' }, id: { type: 'string' } } };

function valid(): Record<string, any> {
  return {
    mcpServers: {
      files: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '${FILES_ROOT}'] },
      crm: {
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${CRM_TOKEN}' },
        writes: {
          create_lead: {
            lookup: { tool: 'find_lead', arguments: { externalId: '{{idempotencyKey}}' }, found: '/id' },
            keyArguments: ['email'],
          },
        },
        timeoutMs: 5000,
      },
    },
    httpTools: {
      create_ticket: {
        description: 'Open a support ticket',
        method: 'POST',
        url: 'https://api.example.com/tickets',
        input,
        write: true,
        idempotencyHeader: 'Idempotency-Key',
        lookup: {
          method: 'GET',
          url: 'https://api.example.com/tickets?externalId={{idempotencyKey}}',
          found: '/data/0',
        },
      },
      get_ticket: {
        description: 'Read a ticket',
        method: 'get',
        url: 'https://api.example.com/tickets/{{id}}',
        input,
      },
    },
    tenants: {
      acme: {
        allow: ['files', 'crm.create_lead', 'create_ticket'],
        conversationDefaults: {
          tools: ['files.read_text_file', 'create_ticket'],
          exitCriteria: [{ check: 'findings_count', expected: 1 }],
          budgetUsd: 2,
          evidence: 'findings_only',
        },
      },
    },
  };
}

function parse(json: unknown, env: Record<string, string> = ENV) {
  return parseToolCatalog(json, FILE, env);
}

function refusal(mutate: (catalog: Record<string, any>) => void, env: Record<string, string> = ENV): string {
  const catalog = valid();
  mutate(catalog);
  try {
    parse(catalog, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the catalog was accepted');
}

describe('tool catalog (VIGIL_TOOLS)', () => {
  it('keeps a stateful server and the tools it runs as reads (stdio and HTTP)', () => {
    const json = valid();
    json.mcpServers.browser = {
      command: 'npx',
      args: ['@playwright/mcp', '--headless'],
      stateful: true,
      reads: ['browser_navigate'],
    };
    json.mcpServers.crm.stateful = false;
    const catalog = parse(json);
    expect(catalog.mcpServers.browser).toMatchObject({ stateful: true, reads: ['browser_navigate'] });
    expect(catalog.mcpServers.crm).not.toHaveProperty('stateful');
  });

  it('parses a valid catalog, keeping ${VAR} templates and recording the variables', () => {
    const catalog = parse(valid());
    expect(catalog.mcpServers.files).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['@modelcontextprotocol/server-filesystem', '${FILES_ROOT}'],
      env: {},
      writes: {},
    });
    expect(catalog.mcpServers.crm).toMatchObject({
      transport: 'http',
      headers: { Authorization: 'Bearer ${CRM_TOKEN}' },
      timeoutMs: 5000,
    });
    expect(catalog.httpTools.get_ticket.method).toBe('GET');
    expect(catalog.mcpServers.crm).not.toHaveProperty('stateful');
    expect(catalog.mcpServers.crm).not.toHaveProperty('reads');
    expect(catalog.httpTools.get_ticket.write).toBe(false);
    expect(catalog.variables).toEqual(['CRM_TOKEN', 'FILES_ROOT']);
    expect(catalog.tenants.acme.conversationDefaults?.tools).toEqual([
      'files.read_text_file',
      'create_ticket',
    ]);
    // No value of a variable is in the parsed catalog that someone might log.
    expect(JSON.stringify(catalog)).not.toContain('crm-secret-value');
    expect(JSON.stringify(catalog)).not.toContain('/srv/work');
  });

  it.each<[string, (c: Record<string, any>) => void, string]>([
    [
      'a command that is not a string',
      (c) => (c.mcpServers.files.command = 42),
      'mcpServers.files: "command" must be a non-empty string',
    ],
    [
      'an empty command',
      (c) => (c.mcpServers.files.command = ' '),
      'mcpServers.files: "command" must be a non-empty string',
    ],
    [
      'neither command nor url',
      (c) => (c.mcpServers.files = { args: [] }),
      'mcpServers.files: "command" must be a non-empty string',
    ],
    [
      'both command and url',
      (c) => (c.mcpServers.files.url = 'https://x.example/mcp'),
      'mcpServers.files: give either "command"',
    ],
    [
      'a stdio server with headers',
      (c) => (c.mcpServers.files.headers = {}),
      'mcpServers.files: unknown field "headers"',
    ],
    ['an HTTP server with args', (c) => (c.mcpServers.crm.args = []), 'mcpServers.crm: unknown field "args"'],
    [
      'args that are not strings',
      (c) => (c.mcpServers.files.args = ['a', 1]),
      'mcpServers.files: "args" must be an array of strings',
    ],
    [
      'env values that are not strings',
      (c) => (c.mcpServers.files.env = { A: 1 }),
      'mcpServers.files: "env" must be an object of strings',
    ],
    [
      'a server URL that is not http(s)',
      (c) => (c.mcpServers.crm.url = 'ftp://x.example/mcp'),
      'mcpServers.crm: "url" must use http or https',
    ],
    [
      'a server URL that is not a URL',
      (c) => (c.mcpServers.crm.url = 'not a url'),
      'mcpServers.crm: "url" must be an absolute http(s) URL',
    ],
    [
      'a server name with a dot',
      (c) => (c.mcpServers['my.files'] = { command: 'x' }),
      'mcpServers.my.files: a server name may use only',
    ],
    [
      'a server name with "__"',
      (c) => (c.mcpServers.my__files = { command: 'x' }),
      'mcpServers.my__files: a server name may use only',
    ],
    [
      'a timeout below 10 ms',
      (c) => (c.mcpServers.crm.timeoutMs = 5),
      'mcpServers.crm: "timeoutMs" must be an integer',
    ],
    [
      'a stateful that is not a boolean',
      (c) => (c.mcpServers.files.stateful = 'yes'),
      'mcpServers.files: "stateful" must be true or false',
    ],
    [
      'reads that are not strings',
      (c) => (c.mcpServers.files.reads = [1]),
      'mcpServers.files: "reads" must be an array of strings',
    ],
    [
      'a tool among both reads and writes',
      (c) => (c.mcpServers.crm.reads = ['create_lead']),
      'mcpServers.crm: "create_lead" is among both "reads" and "writes"',
    ],
    [
      'an unknown writes field',
      (c) => (c.mcpServers.crm.writes.create_lead.retry = true),
      'mcpServers.crm.writes.create_lead: unknown field "retry"',
    ],
    [
      'a lookup without a tool',
      (c) => delete c.mcpServers.crm.writes.create_lead.lookup.tool,
      'mcpServers.crm.writes.create_lead.lookup: "tool" must be a non-empty string',
    ],
    [
      'a lookup "found" that is no pointer',
      (c) => (c.mcpServers.crm.writes.create_lead.lookup.found = 'id'),
      'mcpServers.crm.writes.create_lead.lookup: "found" must be a JSON pointer',
    ],
    [
      'empty keyArguments',
      (c) => (c.mcpServers.crm.writes.create_lead.keyArguments = []),
      'mcpServers.crm.writes.create_lead: "keyArguments" must be a non-empty array',
    ],
    [
      'an HTTP tool name with a space',
      (c) => (c.httpTools['open ticket'] = c.httpTools.create_ticket),
      'httpTools.open ticket: an HTTP tool name may use only',
    ],
    [
      'an HTTP tool named like a server',
      (c) => (c.httpTools.files = c.httpTools.get_ticket),
      'httpTools.files: an MCP server has the same name',
    ],
    [
      'an HTTP tool named like a server tool',
      (c) => (c.httpTools.files__read = c.httpTools.get_ticket),
      'httpTools.files__read: the name could clash',
    ],
    [
      'an HTTP tool without description',
      (c) => delete c.httpTools.get_ticket.description,
      'httpTools.get_ticket: "description" must be a non-empty string',
    ],
    [
      'an unknown method',
      (c) => (c.httpTools.get_ticket.method = 'FETCH'),
      'httpTools.get_ticket: "method" must be one of GET, POST, PUT, PATCH, DELETE',
    ],
    [
      'an input that is not an object schema',
      (c) => (c.httpTools.get_ticket.input = { type: 'string' }),
      'httpTools.get_ticket.input: "type" must be "object"',
    ],
    [
      'no input',
      (c) => delete c.httpTools.get_ticket.input,
      'httpTools.get_ticket: "input" must be a JSON Schema',
    ],
    [
      'a URL placeholder that is no argument',
      (c) => (c.httpTools.get_ticket.url = 'https://a.example/{{ticket}}'),
      'httpTools.get_ticket.url: {{ticket}} is not an argument',
    ],
    [
      'a write flag that is not boolean',
      (c) => (c.httpTools.get_ticket.write = 'yes'),
      'httpTools.get_ticket: "write" must be true or false',
    ],
    [
      'an idempotency header on a read',
      (c) => (c.httpTools.get_ticket.idempotencyHeader = 'Idempotency-Key'),
      'httpTools.get_ticket: "idempotencyHeader" is only for a tool with "write": true',
    ],
    [
      'an idempotency header that is no header name',
      (c) => (c.httpTools.create_ticket.idempotencyHeader = 'Idem Key'),
      'httpTools.create_ticket: "idempotencyHeader" must be an HTTP header name',
    ],
    [
      'a lookup on a read',
      (c) => (c.httpTools.get_ticket.lookup = c.httpTools.create_ticket.lookup),
      'httpTools.get_ticket: "lookup" is only for a tool with "write": true',
    ],
    [
      'a lookup placeholder that is neither key nor argument',
      (c) => (c.httpTools.create_ticket.lookup.url = 'https://a.example/?q={{nope}}'),
      'httpTools.create_ticket.lookup.url: {{nope}} is not an argument',
    ],
    [
      'keyArguments the input does not define',
      (c) => (c.httpTools.create_ticket.keyArguments = ['email']),
      'httpTools.create_ticket: "keyArguments" names "email"',
    ],
    [
      'an unknown HTTP tool field',
      (c) => (c.httpTools.get_ticket.retries = 3),
      'httpTools.get_ticket: unknown field "retries"',
    ],
    ['an unknown top-level field', (c) => (c.servers = {}), 'catalog: unknown field "servers"'],
    [
      'a tenant without allow',
      (c) => (c.tenants.beta = {}),
      'tenants.beta: "allow" must be an array of strings',
    ],
    [
      'a negative retention',
      (c) => (c.tenants.beta = { retention: { failedMs: -1 } }),
      'tenants.beta.retention: "failedMs" must be a whole number of milliseconds',
    ],
    [
      'an unknown retention field',
      (c) => (c.tenants.beta = { retention: { runningMs: 5 } }),
      'tenants.beta.retention: unknown field "runningMs"',
    ],
    [
      'a daily budget of zero',
      (c) => (c.tenants.beta = { dailyBudgetUsd: 0 }),
      'tenants.beta.dailyBudgetUsd: must be a positive number of USD',
    ],
    [
      'a daily budget given as text',
      (c) => (c.tenants.acme.dailyBudgetUsd = '5'),
      'tenants.acme.dailyBudgetUsd: must be a positive number of USD',
    ],
    [
      'a fractional maxRunning',
      (c) => (c.tenants.beta = { maxRunning: 1.5 }),
      'tenants.beta.maxRunning: must be a whole number from 1 to 100000',
    ],
    [
      'a maxRunning of zero',
      (c) => (c.tenants.acme.maxRunning = 0),
      'tenants.acme.maxRunning: must be a whole number from 1 to 100000',
    ],
    [
      'a weight of zero',
      (c) => (c.tenants.acme.weight = 0),
      'tenants.acme.weight: must be a whole number from 1 to 1000',
    ],
    [
      'a fractional weight',
      (c) => (c.tenants.beta = { weight: 2.5 }),
      'tenants.beta.weight: must be a whole number from 1 to 1000',
    ],
    [
      'an allow entry not in the catalog',
      (c) => c.tenants.acme.allow.push('crm2'),
      'tenants.acme.allow: "crm2" is not in the catalog',
    ],
    [
      'an allow entry of an unknown server',
      (c) => c.tenants.acme.allow.push('mail.send'),
      'tenants.acme.allow: "mail.send" is not in the catalog',
    ],
    [
      'a bad tenant id',
      (c) => (c.tenants['acme corp'] = { allow: [] }),
      'tenants.acme corp: a tenant id may use only',
    ],
    [
      'default tools outside the allow list',
      (c) => c.tenants.acme.conversationDefaults.tools.push('get_ticket'),
      'tenants.acme.conversationDefaults.tools: "get_ticket" is not in this tenant\'s "allow" list',
    ],
    [
      'a default criterion without check',
      (c) => (c.tenants.acme.conversationDefaults.exitCriteria = [{ expected: 1 }]),
      'tenants.acme.conversationDefaults.exitCriteria[0]: "check" must be a non-empty string',
    ],
    [
      'a default budget of zero',
      (c) => (c.tenants.acme.conversationDefaults.budgetUsd = 0),
      'tenants.acme.conversationDefaults: "budgetUsd" must be a positive number',
    ],
    [
      'an unknown evidence rule',
      (c) => (c.tenants.acme.conversationDefaults.evidence = 'none'),
      'tenants.acme.conversationDefaults: "evidence" may only be "findings_only"',
    ],
    [
      'an unknown defaults field',
      (c) => (c.tenants.acme.conversationDefaults.model = 'opus'),
      'tenants.acme.conversationDefaults: unknown field "model"',
    ],
  ])('refuses %s, naming the file and the entry', (_case, mutate, message) => {
    expect(refusal(mutate)).toContain(`VIGIL_TOOLS (${FILE}): ${message}`);
  });

  it('reads a tenant retention, and a tenant named only for it allows no tool', () => {
    const catalog = valid();
    catalog.tenants.beta = { retention: { completedMs: 60_000, failedMs: 0 } };
    expect(parse(catalog).tenants.beta).toEqual({
      allow: [],
      retention: { completedMs: 60_000, failedMs: 0 },
    });
  });

  it('reads a tenant’s daily budget and running places, and a tenant named only for them allows no tool', () => {
    const catalog = valid();
    catalog.tenants.beta = { dailyBudgetUsd: 2.5, maxRunning: 2, weight: 3 };
    const parsed = parse(catalog);
    expect(parsed.tenants.beta).toEqual({ allow: [], dailyBudgetUsd: 2.5, maxRunning: 2, weight: 3 });
    expect(tenantLimitsOf(parsed, 'beta')).toEqual({ dailyBudgetUsd: 2.5, maxRunning: 2, weight: 3 });
    expect(tenantLimitsOf(parsed, 'acme')).toEqual({});
    expect(tenantLimitsOf(parsed, 'toString')).toEqual({});
    expect(tenantLimitsOf(undefined, 'beta')).toEqual({});
  });

  it('refuses a ${VAR} that is not set, naming the entry and the variable, never another value', () => {
    const message = refusal(() => undefined, { FILES_ROOT: '/srv/work' });
    expect(message).toBe(
      `VIGIL_TOOLS (${FILE}): mcpServers.crm.headers.Authorization: the variable CRM_TOKEN is not set`,
    );
    expect(refusal((c) => (c.mcpServers.files.env = { HOME: '${HOME_DIR}' }))).toContain(
      'mcpServers.files.env.HOME: the variable HOME_DIR is not set',
    );
    expect(refusal((c) => (c.httpTools.get_ticket.url = 'https://${API_HOST}/t/{{id}}'))).toContain(
      'httpTools.get_ticket.url: the variable API_HOST is not set',
    );
    expect(refusal((c) => (c.mcpServers.files.args = ['${lower-case}']))).toContain(
      'mcpServers.files.args[0]: "${lower-case}" is not a valid variable reference',
    );
    expect(refusal(() => undefined, { FILES_ROOT: '/srv/work', CRM_TOKEN: '' })).toContain(
      'the variable CRM_TOKEN is not set',
    );
  });

  it('is loaded by loadConfig from the file VIGIL_TOOLS names, and a bad file stops the boot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-tools-'));
    try {
      const path = join(dir, 'tools.json');
      writeFileSync(path, JSON.stringify(valid()));
      const config = loadConfig({ ...ENV, VIGIL_TOOLS: path });
      expect(config.toolCatalog?.path).toBe(path);
      expect(Object.keys(config.toolCatalog!.mcpServers)).toEqual(['files', 'crm']);
      expect(loadConfig({}).toolCatalog).toBeUndefined();
      writeFileSync(path, '{"mcpServers": ');
      expect(() => loadConfig({ VIGIL_TOOLS: path })).toThrow(`VIGIL_TOOLS (${path}): not valid JSON`);
      expect(() => loadConfig({ VIGIL_TOOLS: join(dir, 'missing.json') })).toThrow('cannot read the file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
