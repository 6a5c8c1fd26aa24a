import type { IncomingMessage } from 'node:http';
import { GraphError, invalidParam } from './errors';
import { isPlainObject, type Params } from './params';

const MAX_BODY_BYTES = 45 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new GraphError(413, 1, 'Request body is too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Parses a form-urlencoded or JSON body into params (nested form fields stay JSON strings until used). */
export function parseBody(contentType: string | undefined, body: Buffer): Params {
  if (body.length === 0) return {};
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalidParam('body', 'is not valid JSON');
    }
    if (!isPlainObject(parsed)) throw invalidParam('body', 'must be a JSON object');
    return parsed;
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  }
  throw invalidParam(
    'Content-Type',
    `${type} is not supported (use application/x-www-form-urlencoded or application/json)`,
  );
}

/** The access token from `Authorization: Bearer|OAuth <token>`, the body, or the query string. */
export function extractToken(req: IncomingMessage, params: Params): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(header) : null;
  if (match) return match[1];
  const token = params.access_token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** Query params overlaid by body params (Meta treats both alike). */
export function mergeParams(query: URLSearchParams, body: Params): Params {
  return { ...Object.fromEntries(query), ...body };
}
