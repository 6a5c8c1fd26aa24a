import { FakeToolGateway, toolFailure, type FakeToolSpec } from '@vigil/testing';

/**
 * An external system for missions in tests: notes (an MCP-like server whose create has a lookup by
 * idempotency key), a ticket tracker over HTTP (a write with no lookup that can commit and drop
 * its answer), and a memory server whose `set` is idempotent. Each holds what was really written.
 */
export class FakeCatalog {
  readonly notes = new Map<string, { title: string; key?: string }>();
  readonly tickets: { title: string }[] = [];
  readonly memory = new Map<string, unknown>();
  /** Titles whose create commits and then loses its answer, once each. */
  readonly dropAnswerOnce = new Set<string>();
  readonly gateway: FakeToolGateway;

  constructor(allow: Record<string, string[]> = {}) {
    const specs: FakeToolSpec[] = [
      {
        catalogName: 'notes.create_note',
        effect: 'write',
        inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        handle: (args, options) => {
          const id = `note_${this.notes.size + 1}`;
          this.notes.set(id, { title: String(args.title), key: options.idempotencyKey });
          if (this.dropAnswerOnce.delete(String(args.title)))
            throw toolFailure('connection reset after the write', { outcomeUnknown: true });
          return {
            text: `created ${id}`,
            raw: { content: [{ type: 'text', text: `created ${id}` }], structuredContent: { id } },
          };
        },
        lookup: (_args, options) => {
          const found = [...this.notes].find(([, note]) => note.key === options.idempotencyKey);
          return found ? { structuredContent: { id: found[0] } } : null;
        },
      },
      {
        catalogName: 'notes.list_notes',
        effect: 'read',
        handle: () => {
          const titles = [...this.notes.values()].map((note) => note.title).sort();
          return {
            text: titles.join(', '),
            raw: {
              content: [{ type: 'text', text: titles.join(', ') }],
              structuredContent: { count: titles.length, titles },
            },
          };
        },
      },
      {
        catalogName: 'create_ticket',
        effect: 'write',
        inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        handle: (args) => {
          this.tickets.push({ title: String(args.title) });
          if (this.dropAnswerOnce.delete(String(args.title)))
            throw toolFailure('HTTP: socket hang up', { outcomeUnknown: true });
          return { text: `ticket ${this.tickets.length}`, raw: { id: `TCK-${this.tickets.length}` } };
        },
      },
      {
        catalogName: 'memory.set',
        effect: 'write',
        idempotent: true,
        handle: (args) => {
          this.memory.set(String(args.key), args.value);
          if (this.dropAnswerOnce.delete(String(args.key))) throw toolFailure('server exited mid-call');
          return { text: 'ok', raw: { content: [{ type: 'text', text: 'ok' }] } };
        },
      },
    ];
    this.gateway = new FakeToolGateway(specs, allow);
  }
}
