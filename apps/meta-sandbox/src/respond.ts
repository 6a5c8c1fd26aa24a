import type { ServerResponse } from 'node:http';

/** Writes a JSON response the way Graph does (`application/json; charset=UTF-8`). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'private, no-cache, no-store, must-revalidate',
    ...headers,
  });
  res.end(payload);
}
