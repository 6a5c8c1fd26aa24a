// The mission `npm run demo -- --mission` runs: a catalog of two real MCP servers from npm
// (server-filesystem on a temp dir, server-memory with a temp MEMORY_FILE_PATH) and one HTTP tool
// (the local ticket tracker), and a scripted mission that writes files, creates memory entities,
// opens a ticket and records findings. No model keys: the scripted agent plays the plan.
import { join } from 'node:path';

const serverEntry = (root, name) => join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

/** The operator's catalog (VIGIL_TOOLS) for the demo's tenant. */
export function missionCatalog({ root, workDir, memoryFile, trackerUrl, tenant }) {
  return {
    mcpServers: {
      // The servers' own entry points under node: what `npx @modelcontextprotocol/server-…` runs.
      files: { command: process.execPath, args: [serverEntry(root, 'server-filesystem'), workDir] },
      memory: {
        command: process.execPath,
        args: [serverEntry(root, 'server-memory')],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
    },
    httpTools: {
      create_ticket: {
        description: 'Open a ticket in the tracker. Returns the ticket with its id.',
        method: 'POST',
        url: `${trackerUrl}/tickets`,
        input: {
          type: 'object',
          properties: { title: { type: 'string' }, body: { type: 'string' } },
          required: ['title'],
          additionalProperties: false,
        },
        write: true,
        idempotencyHeader: 'Idempotency-Key',
        lookup: {
          method: 'GET',
          url: `${trackerUrl}/tickets?externalId={{idempotencyKey}}`,
          found: '/data/0',
        },
      },
    },
    tenants: { [tenant]: { allow: ['files', 'memory', 'create_ticket'] } },
  };
}

export const TICKET_TITLE = 'Quickstart: say that Redis must be running';
export const SUMMARY = '# Docs review\n\nThe quickstart assumes a running Redis and never says so.\n';
export const GAPS = '- quickstart: no Redis step\n- configuration: no example of VIGIL_TOOLS\n';

/** The mission's plan, turn by turn; the writes are calls 1 to 5. */
export function missionPlan(workDir) {
  return [
    { tool: 'files.write_file', args: { path: join(workDir, 'summary.md'), content: SUMMARY } },
    { tool: 'files.write_file', args: { path: join(workDir, 'gaps.md'), content: GAPS } },
    {
      tool: 'memory.create_entities',
      args: {
        entities: [
          { name: 'Quickstart', entityType: 'document', observations: ['assumes Redis is running'] },
        ],
      },
    },
    {
      tool: 'memory.create_entities',
      args: {
        entities: [
          { name: 'Configuration', entityType: 'document', observations: ['no VIGIL_TOOLS example'] },
        ],
      },
    },
    { tool: 'create_ticket', args: { title: TICKET_TITLE, body: 'Found by the docs review mission.' } },
    {
      tool: 'record_finding',
      args: {
        title: 'The quickstart never says Redis must run',
        body: 'A new user following it gets ECONNREFUSED on the first request.',
        data: { document: 'quickstart', severity: 'high' },
      },
    },
    {
      tool: 'record_finding',
      args: {
        title: 'Ticket opened for the quickstart gap',
        body: `Filed in the tracker as "${TICKET_TITLE}".`,
      },
    },
    { tool: 'finish_task', args: { summary: 'Reviewed the docs, saved notes, opened one ticket.' } },
  ];
}

/** Evidence read from the three systems, never from the agent: a file, a memory entity, the ticket. */
export function missionCriteria({ workDir, trackerUrl }) {
  return [
    {
      check: 'tool_result',
      args: {
        tool: 'files.read_text_file',
        arguments: { path: join(workDir, 'summary.md') },
        pointer: '/structuredContent/content',
      },
      expected: SUMMARY,
    },
    {
      check: 'tool_result',
      args: {
        tool: 'memory.open_nodes',
        arguments: { names: ['Quickstart', 'Configuration'] },
        pointer: '/structuredContent/entities/1/name',
      },
      expected: 'Configuration',
    },
    {
      check: 'http_json',
      args: { url: `${trackerUrl}/tickets?title=${encodeURIComponent(TICKET_TITLE)}`, pointer: '/total' },
      expected: 1,
    },
    { check: 'findings_count', expected: 2 },
  ];
}
