import { markup, SafeHtml } from './escape';

export const DASHBOARD_BASE = '/admin/tasks';
export const SCRIPT_PATH = `${DASHBOARD_BASE}/assets/dashboard.js`;
export const STYLE_PATH = `${DASHBOARD_BASE}/assets/dashboard.css`;

/**
 * The page shell. Nothing inline: the script and the stylesheet are static routes, so the admin
 * CSP's `script-src 'self'` holds (docs/operations.md, "The task dashboard"). `data-live` is the
 * SSE endpoint the script follows; `data-server-now` lets it age heartbeats by the server's clock.
 */
export function layout(title: string, live: string, body: SafeHtml, now = Date.now()): string {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Vigil</title>
<link rel="stylesheet" href="${STYLE_PATH}">
<script src="${SCRIPT_PATH}" defer></script>
</head>
<body data-live="${live}" data-server-now="${now}">
<header class="top">
<a href="${DASHBOARD_BASE}">Vigil tasks</a>
<a href="${DASHBOARD_BASE}/schedules">schedules</a>
<a href="/admin/queues">queues</a>
<span id="live-state" class="live-state">not live</span>
</header>
<main id="live-root">${body}</main>
</body>
</html>
`.html;
}
