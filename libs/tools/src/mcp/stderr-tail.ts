import type { Stream } from 'node:stream';
import { scrubSecrets } from '@vigil/platform';

const TAIL_CHARS = 600;

/**
 * The last lines a stdio server wrote to stderr. Piped rather than inherited: an inherited stderr
 * would bypass the process's secret scrubbing, and a server that dies says why there.
 */
export class StderrTail {
  private tail = '';

  attach(stream: Stream | null): void {
    stream?.on('data', (chunk: Buffer | string) => {
      this.tail = (this.tail + chunk.toString()).slice(-TAIL_CHARS);
    });
  }

  text(): string {
    return scrubSecrets(this.tail.trim().split('\n').slice(-3).join(' | '));
  }
}
