export interface SseFrame {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
  retry?: number;
}

export interface SseOptions {
  /** Leaves the stream at the first frame this accepts, before reading any frame after it. */
  leaveAfter?: (frame: SseFrame) => boolean;
}

/** A minimal EventSource over fetch: collects frames until the server closes or `close` is called. */
export class SseClient {
  readonly frames: SseFrame[] = [];
  status = 0;
  ended = false;
  private readonly abort = new AbortController();
  private done!: Promise<void>;

  private constructor(private readonly options: SseOptions) {}

  static async open(
    url: string,
    headers: Record<string, string> = {},
    options: SseOptions = {},
  ): Promise<SseClient> {
    const client = new SseClient(options);
    const response = await fetch(url, { headers, signal: client.abort.signal });
    client.status = response.status;
    client.done = client.read(response).finally(() => {
      client.ended = true;
    });
    return client;
  }

  private async read(response: Response): Promise<void> {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = parse(buffer.slice(0, end));
          this.frames.push(frame);
          buffer = buffer.slice(end + 2);
          if (this.options.leaveAfter?.(frame)) {
            this.abort.abort();
            return;
          }
        }
      }
    } catch (error) {
      if (!this.abort.signal.aborted) throw error;
    }
  }

  events(): SseFrame[] {
    return this.frames.filter((frame) => frame.id !== undefined);
  }

  lastId(): string | undefined {
    return this.events().at(-1)?.id;
  }

  async waitFor(predicate: (client: SseClient) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`SSE: condition not met within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Resolves when the server ended the stream. */
  finished(): Promise<void> {
    return this.done;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done.catch(() => undefined);
  }
}

function parse(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else if (line.startsWith('id: ')) frame.id = line.slice(4);
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
    else if (line.startsWith('retry: ')) frame.retry = Number(line.slice(7));
  }
  return frame;
}
