// A small multi-page web app for the browser walkthrough (`npm run demo -- --walkthrough`): a
// home page, pricing and a sign-up form, served as static HTML. It has one deliberate defect for
// the walkthrough to find: submitting the sign-up form (GET /signup?email=…&plan=…) answers
// 500 with an error page instead of creating the account. It counts the pages it served.
//
//   node examples/walkthrough-app/server.js [port]     # standalone, prints its URL
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS file, runnable as it is
const http = require('node:http');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
const { readFileSync } = require('node:fs');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
const { join } = require('node:path');

const PAGES = ['index.html', 'pricing.html', 'signup.html', 'style.css'];
const TYPES = { html: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8' };

const SIGNUP_ERROR = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Ledgerly — Error</title><link rel="stylesheet" href="/style.css"></head>
<body>
<header><strong>Ledgerly</strong><a href="/">Home</a><a href="/pricing.html">Pricing</a><a href="/signup.html">Sign up</a></header>
<main>
  <h1>Something went wrong</h1>
  <p class="error">Error 500: we could not create your account (SIGNUP_STORE_UNAVAILABLE). Please try again later.</p>
</main>
</body>
</html>
`;

/**
 * @param {{ port?: number }} [options]
 * @returns {Promise<{ url: string, port: number, served: () => Record<string, number>, close: () => Promise<void> }>}
 */
function startWalkthroughApp(options = {}) {
  const files = new Map(PAGES.map((name) => [`/${name}`, readFileSync(join(__dirname, 'pages', name))]));
  files.set('/', files.get('/index.html'));
  const served = {};

  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://app');
    served[pathname] = (served[pathname] ?? 0) + 1;
    const headers = { 'cache-control': 'no-store' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers);
      return res.end();
    }
    // The defect: the form's submit always fails.
    if (pathname === '/signup') {
      res.writeHead(500, { ...headers, 'content-type': TYPES.html });
      return res.end(SIGNUP_ERROR);
    }
    const body = files.get(pathname);
    if (!body) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, {
      ...headers,
      'content-type': TYPES[pathname === '/' ? 'html' : pathname.split('.').pop()],
    });
    return res.end(body);
  });

  return new Promise((resolve) => {
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        served: () => ({ ...served }),
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

module.exports = { startWalkthroughApp };

if (require.main === module) {
  startWalkthroughApp({ port: Number(process.argv[2] ?? 4030) }).then((app) =>
    process.stdout.write(`walkthrough app listening on ${app.url}\n`),
  );
}
