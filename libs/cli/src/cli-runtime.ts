import type { CliIo, Printer } from './printer';

/** What the CLI gets from the process that runs it (apps/cli main.ts; tests pass their own). */
export interface CliRuntime extends CliIo {
  env: Record<string, string | undefined>;
  /** The standard input's text, for `-f -`. */
  readStdin: () => string;
  /** Runs `vigil doctor` (loaded only when asked: it brings Redis, the object store and MCP clients). */
  doctor?: (printer: Printer, options: { json: boolean }) => Promise<number>;
  signal?: AbortSignal;
}
