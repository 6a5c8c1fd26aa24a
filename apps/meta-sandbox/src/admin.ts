import type { IncomingMessage, ServerResponse } from 'node:http';
import { imageMime } from './objects/adimages';
import { readBody } from './request';
import { sendJson } from './respond';
import type { SandboxStore } from './store';
import type { FaultConfig } from './types';

/** What the admin routes need from the sandbox. */
export interface AdminTarget {
  store: SandboxStore;
  snapshot(): unknown;
  stats(): unknown;
  faultsJson(): unknown;
  setFaults(config: FaultConfig): void;
  reset(): void;
}

/** Non-Meta routes under `/__sandbox/`: inspection, fault control, reset and image bytes. */
export async function handleAdmin(
  target: AdminTarget,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method?.toUpperCase()} ${url.pathname.replace(/\/+$/, '')}`;
  const body = await readBody(req);
  switch (route) {
    case 'GET /__sandbox/objects':
      return sendJson(res, 200, target.snapshot());
    case 'GET /__sandbox/stats':
      return sendJson(res, 200, target.stats());
    case 'GET /__sandbox/faults':
      return sendJson(res, 200, target.faultsJson());
    case 'POST /__sandbox/faults': {
      try {
        target.setFaults(body.length ? (JSON.parse(body.toString('utf8')) as FaultConfig) : {});
      } catch (err) {
        return sendJson(res, 400, { error: { message: (err as Error).message } });
      }
      return sendJson(res, 200, target.faultsJson());
    }
    case 'POST /__sandbox/reset':
      target.reset();
      return sendJson(res, 200, { ok: true });
  }
  const image = /^GET \/__sandbox\/images\/(\d+)\/([0-9a-f]{32})$/.exec(route);
  const record = image ? target.store.imageByHash(image[1], image[2]) : undefined;
  if (record) {
    res.writeHead(200, { 'content-type': imageMime(record.bytes) ?? 'application/octet-stream' });
    res.end(record.bytes);
    return;
  }
  sendJson(res, 404, { error: { message: `No sandbox route ${route}` } });
}
