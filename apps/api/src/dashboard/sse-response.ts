import type { Response } from 'express';

/** Opens a Server-Sent Events response; the signal fires when the client goes away. */
export function openSse(response: Response): {
  write: (event: string, data: unknown, id?: string) => void;
  closed: AbortSignal;
} {
  response.status(200).set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store, no-transform',
    connection: 'close',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
  const closed = new AbortController();
  response.on('close', () => closed.abort());
  response.write('retry: 1000\n\n');
  return {
    closed: closed.signal,
    write: (event, data, id) => {
      if (event === 'comment') response.write(': keep-alive\n\n');
      else response.write(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
  };
}
