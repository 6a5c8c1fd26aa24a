import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTicketTracker, type TicketTracker } from '../../examples/ticket-tracker/tracker';

const ROOT = resolve(__dirname, '../..');
const serverEntry = (name: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

export const TENANT = 'acme';
export const TICKET_TITLE = 'Quickstart: say that Redis must be running';
export const SUMMARY = '# Docs review\n\nThe quickstart assumes a running Redis.\n';
export const GAPS = '- quickstart: no Redis step\n';

/**
 * The outside world of a mission test: a temp dir served by the real server-filesystem, a memory
 * file of the real server-memory, the ticket tracker, and the catalog naming all three. `create_ticket`
 * has a lookup; `file_ticket` is the same endpoint with neither a lookup nor an idempotency header.
 */
export class MissionWorld {
  readonly dir = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-missions-')));
  readonly workDir = join(this.dir, 'work');
  readonly memoryFile = join(this.dir, 'memory.jsonl');
  readonly catalogPath = join(this.dir, 'vigil.tools.json');
  tracker!: TicketTracker;

  async start(allow: string[] = ['files', 'memory', 'create_ticket', 'file_ticket']): Promise<this> {
    mkdirSync(this.workDir);
    this.tracker = await startTicketTracker();
    const ticketInput = {
      type: 'object',
      properties: { title: { type: 'string' }, body: { type: 'string' } },
      required: ['title'],
      additionalProperties: false,
    };
    const catalog = {
      mcpServers: {
        files: { command: process.execPath, args: [serverEntry('server-filesystem'), this.workDir] },
        memory: {
          command: process.execPath,
          args: [serverEntry('server-memory')],
          env: { MEMORY_FILE_PATH: this.memoryFile },
        },
      },
      httpTools: {
        create_ticket: {
          description: 'Open a ticket in the tracker.',
          method: 'POST',
          url: `${this.tracker.url}/tickets`,
          input: ticketInput,
          write: true,
          idempotencyHeader: 'Idempotency-Key',
          lookup: {
            method: 'GET',
            url: `${this.tracker.url}/tickets?externalId={{idempotencyKey}}`,
            found: '/data/0',
          },
        },
        file_ticket: {
          description: 'Open a ticket in the tracker (no way to look it up afterwards).',
          method: 'POST',
          url: `${this.tracker.url}/tickets`,
          input: ticketInput,
          write: true,
        },
      },
      tenants: { [TENANT]: { allow }, other: { allow: ['files'] } },
    };
    writeFileSync(this.catalogPath, JSON.stringify(catalog, null, 2));
    return this;
  }

  env(): Record<string, string> {
    return { VIGIL_TOOLS: this.catalogPath, TOOLS_ALLOW_PRIVATE: 'true' };
  }

  /** Empties the three systems between tasks of one test file. */
  reset(): void {
    for (const name of readdirSync(this.workDir)) rmSync(join(this.workDir, name), { recursive: true });
    if (existsSync(this.memoryFile)) rmSync(this.memoryFile);
    this.tracker.reset();
  }

  files(): Record<string, string> {
    return Object.fromEntries(
      readdirSync(this.workDir)
        .sort()
        .map((name) => [name, readFileSync(join(this.workDir, name), 'utf8')]),
    );
  }

  memoryEntities(): { name: string; observations: string[] }[] {
    if (!existsSync(this.memoryFile)) return [];
    return readFileSync(this.memoryFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((raw) => JSON.parse(raw) as { type: string; name: string; observations: string[] })
      .filter((item) => item.type === 'entity');
  }

  async close(): Promise<void> {
    await this.tracker?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The mission's plan: calls 1 to 5 are its writes (two files, two entities, one ticket). */
  plan(): { tool: string; args: Record<string, unknown> }[] {
    return [
      { tool: 'files.write_file', args: { path: join(this.workDir, 'summary.md'), content: SUMMARY } },
      { tool: 'files.write_file', args: { path: join(this.workDir, 'gaps.md'), content: GAPS } },
      {
        tool: 'memory.create_entities',
        args: { entities: [{ name: 'Quickstart', entityType: 'document', observations: ['assumes Redis'] }] },
      },
      {
        tool: 'memory.create_entities',
        args: {
          entities: [{ name: 'Configuration', entityType: 'document', observations: ['no catalog example'] }],
        },
      },
      { tool: 'create_ticket', args: { title: TICKET_TITLE, body: 'Found by the docs review.' } },
      {
        tool: 'record_finding',
        args: {
          title: 'The quickstart never says Redis must run',
          body: 'A new user gets ECONNREFUSED on the first request.',
          data: { document: 'quickstart', severity: 'high' },
        },
      },
      { tool: 'record_finding', args: { title: 'Ticket opened', body: `Filed as "${TICKET_TITLE}".` } },
      { tool: 'finish_task', args: { summary: 'Reviewed the docs and filed one ticket.' } },
    ];
  }

  /** Evidence from the three systems: a file's content, a memory entity, the ticket count. */
  criteria(): Record<string, unknown>[] {
    return [
      {
        check: 'tool_result',
        args: {
          tool: 'files.read_text_file',
          arguments: { path: join(this.workDir, 'summary.md') },
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
      this.ticketFiledOnce(),
      { check: 'findings_count', expected: 2 },
    ];
  }

  /** The criterion that the tracker holds exactly one ticket titled TICKET_TITLE. */
  ticketFiledOnce() {
    return {
      check: 'http_json',
      args: {
        url: `${this.tracker.url}/tickets?title=${encodeURIComponent(TICKET_TITLE)}`,
        pointer: '/total',
      },
      expected: 1,
    };
  }

  request(scripted: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      kind: 'mission',
      title: 'Review the docs and file what is missing',
      input: {
        goal: 'Review the quickstart and the configuration docs; note the gaps in files and memory; open a ticket.',
        tools: ['files', 'memory', 'create_ticket'],
      },
      exitCriteria: this.criteria(),
      agent: { scripted: { plan: this.plan(), ...scripted } },
    };
  }
}
