import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The admin user: one shared operator login, its password ADMIN_PASSWORD. */
export const ADMIN_USER = 'admin';

/**
 * Basic auth for every admin page (Bull Board at /admin/queues, the dashboard at /admin/tasks):
 * user `admin`, password ADMIN_PASSWORD, compared in constant time; anything else is a 401 that
 * asks the browser for credentials.
 */
export function basicAuth(password: string) {
  const expected = digest(`${ADMIN_USER}:${password}`);
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const presented = match ? Buffer.from(match[1], 'base64').toString() : '';
    if (timingSafeEqual(digest(presented), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="vigil admin"');
    res.status(401).json({ statusCode: 401, error: 'Unauthorized', message: 'admin credentials required' });
  };
}
