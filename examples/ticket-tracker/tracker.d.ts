/** Types of tracker.js, for the TypeScript tests that start it. */
export interface Ticket {
  id: string;
  title: string;
  body: string;
  externalId: string | null;
  createdAt: string;
}

export interface TicketTracker {
  url: string;
  port: number;
  /** Every ticket created, in order (the tracker never deduplicates). */
  tickets: Ticket[];
  stats(): { tickets: number; createCalls: number };
  /** The next `n` creates commit and then drop the connection without an answer. */
  dropNextCreates(n: number): void;
  /** Forgets every ticket and count. */
  reset(): void;
  close(): Promise<void>;
}

export function startTicketTracker(options?: { port?: number }): Promise<TicketTracker>;
