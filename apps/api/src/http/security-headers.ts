import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

/** JSON, SSE and errors: nothing to load, nothing may frame it. */
const API_POLICY: Directives = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
};

/**
 * Bull Board (/admin/queues): its page loads its own scripts and stylesheets, sets inline styles
 * (React and the loading screen), takes its fonts from Google Fonts and calls its own JSON API. Its
 * only inline <script> is `type="application/json"` data, which CSP does not treat as a script,
 * so scripts stay 'self' only.
 */
const ADMIN_POLICY: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'", 'https://fonts.googleapis.com'],
  'font-src': ["'self'", 'https://fonts.gstatic.com', 'data:'],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The task dashboard (/admin/tasks): server-rendered pages whose one script and stylesheet are
 * static routes of its own, and an SSE stream from the same origin; nothing inline, no fonts.
 */
const DASHBOARD_POLICY: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Answer pages of human hand-offs (/h/<token>): one HTML form that posts to itself, its styles in
 * one inline <style>, no script at all.
 */
const ANSWER_PAGE_POLICY: Directives = {
  'default-src': ["'none'"],
  'style-src': ["'unsafe-inline'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** Swagger UI (/docs): its own scripts, inline styles, data: images. */
const DOCS_POLICY: Directives = {
  ...ADMIN_POLICY,
  'style-src': ["'self'", "'unsafe-inline'"],
  'font-src': ["'self'", 'data:'],
  'img-src': ["'self'", 'data:', 'https:'],
};

const csp = (directives: Directives) => helmet.contentSecurityPolicy({ useDefaults: false, directives });

/**
 * The API's security headers (docs/operations.md, "HTTP hardening"): helmet's set — no
 * `X-Powered-By`, `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, a referrer policy —
 * and a Content-Security-Policy with `frame-ancestors 'none'` on every response, scoped so the
 * admin and docs pages still load what they need.
 */
export function securityHeaders(): RequestHandler[] {
  const policies: [string, RequestHandler][] = [
    // Most specific first: the first prefix that matches decides.
    ['/admin/tasks', csp(DASHBOARD_POLICY)],
    ['/admin', csp(ADMIN_POLICY)],
    ['/h/', csp(ANSWER_PAGE_POLICY)],
    ['/docs', csp(DOCS_POLICY)],
  ];
  const apiPolicy = csp(API_POLICY);
  return [
    helmet({ contentSecurityPolicy: false, frameguard: { action: 'deny' } }),
    (request: Request, response: Response, next: NextFunction) => {
      const scoped = policies.find(([prefix]) => request.path.startsWith(prefix));
      (scoped?.[1] ?? apiPolicy)(request, response, next);
    },
  ];
}

/** `/v1` answers are one tenant's data: no cache, shared or private, may keep them. */
export function noStore(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Cache-Control', 'no-store');
  next();
}
