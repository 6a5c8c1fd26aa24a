import type { ServerResponse } from 'node:http';

/** One Server-Sent Event as a provider writes it: an optional `event` name and a JSON `data`. */
export interface WireSseEvent {
  event?: string;
  data: unknown;
}

/** Requests that asked for a streamed reply: a 200 answer to them goes out as events. */
const STREAMED = new WeakSet<ServerResponse>();

export function markStreamed(res: ServerResponse): void {
  STREAMED.add(res);
}

export function isStreamed(res: ServerResponse): boolean {
  return STREAMED.has(res);
}

/** Starts an event stream (status 200, `text/event-stream`). */
export function openSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}

/** Writes events; `separator` is Google's `\r\n\r\n` or the `\n\n` of the SSE specification. */
export function writeSse(res: ServerResponse, events: readonly WireSseEvent[], separator = '\n\n'): void {
  for (const { event, data } of events) {
    const name = event ? `event: ${event}\n` : '';
    res.write(`${name}data: ${JSON.stringify(data)}${separator}`);
  }
}

/** Cuts `text` in pieces of at most `size` characters (one piece for the empty string). */
export function pieces(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
