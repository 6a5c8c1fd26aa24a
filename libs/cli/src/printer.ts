import type { Line, Tone } from './task-format';

/** Where the CLI writes, and what kind of place it is. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stdout is a terminal: a redrawn progress line and colours; otherwise plain lines only. */
  tty: boolean;
  /** Colours allowed (a terminal, and NO_COLOR unset). */
  color: boolean;
}

const COLOURS: Record<Tone, string> = {
  plain: '',
  good: '\x1b[32m',
  bad: '\x1b[31m',
  warn: '\x1b[33m',
  dim: '\x1b[2m',
};
const RESET = '\x1b[0m';
const CLEAR_LINE = '\r\x1b[K';

/**
 * Writes lines for a person (docs/cli.md, "Output"). On a terminal a live status line (the progress
 * bar) stays at the bottom, redrawn in place and cleared before every other line; without one every
 * line is plain text ending in a newline, with no escape sequence and no carriage return.
 */
export class Printer {
  private status: string | undefined;

  constructor(private readonly io: CliIo) {}

  get tty(): boolean {
    return this.io.tty;
  }

  line(line: string | Line): void {
    const { text, tone } = typeof line === 'string' ? { text: line, tone: 'plain' as Tone } : line;
    this.clearStatus();
    this.io.stdout(`${this.paint(text, tone ?? 'plain')}\n`);
    this.drawStatus();
  }

  lines(lines: readonly (string | Line)[]): void {
    for (const line of lines) this.line(line);
  }

  /** A value for a program: JSON, one document. */
  json(value: unknown): void {
    this.clearStatus();
    this.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** One JSON value per line (a stream of events). */
  jsonLine(value: unknown): void {
    this.io.stdout(`${JSON.stringify(value)}\n`);
  }

  /**
   * The live status line on a terminal. Without one, nothing is drawn: the caller prints plain
   * progress lines itself, as often as they say something new.
   */
  setStatus(text: string): void {
    if (!this.io.tty) return;
    this.status = text;
    this.io.stdout(`${CLEAR_LINE}${text}`);
  }

  /** Ends the live status line, leaving its last state on screen. */
  endStatus(): void {
    if (this.status !== undefined) this.io.stdout('\n');
    this.status = undefined;
  }

  /** A warning or an error, to stderr. */
  warn(text: string): void {
    this.clearStatus();
    this.io.stderr(`${this.paint(text, 'warn')}\n`);
    this.drawStatus();
  }

  error(text: string): void {
    this.clearStatus();
    this.io.stderr(`${this.paint(text, 'bad')}\n`);
    this.drawStatus();
  }

  private paint(text: string, tone: Tone): string {
    return this.io.color && tone !== 'plain' ? `${COLOURS[tone]}${text}${RESET}` : text;
  }

  private clearStatus(): void {
    if (this.status !== undefined) this.io.stdout(CLEAR_LINE);
  }

  private drawStatus(): void {
    if (this.status !== undefined) this.io.stdout(this.status);
  }
}
