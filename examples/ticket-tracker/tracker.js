// A tiny ticket tracker: the HTTP service the mission demo and the mission tests write to.
// Tickets are created by POST /tickets and found again by the idempotency key the caller sent
// (GET /tickets?externalId=…), as a real tracker's "external id" works. It never deduplicates on
// its own, so a write Vigil made twice would show as two tickets. A fault switch makes the next
// creates commit and then drop the connection before answering.
//
//   node examples/ticket-tracker/tracker.js [port]     # standalone, prints its URL
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS file, runnable as it is
const http = require('node:http');

/**
 * @param {{ port?: number }} [options]
 * @returns {Promise<{ url: string, port: number, tickets: object[], stats: () => object,
 *   dropNextCreates: (n: number) => void, reset: () => void, close: () => Promise<void> }>}
 */
function startTicketTracker(options = {}) {
  const tickets = [];
  let createCalls = 0;
  let dropCreates = 0;

  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readJson = (req) =>
    new Promise((resolve, reject) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        try {
          resolve(raw ? JSON.parse(raw) : {});
        } catch (error) {
          reject(error);
        }
      });
    });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://tracker');
    try {
      if (req.method === 'POST' && url.pathname === '/tickets') {
        createCalls++;
        const body = await readJson(req);
        if (typeof body.title !== 'string' || !body.title)
          return send(res, 400, { error: 'title is required' });
        const externalId = req.headers['idempotency-key'] ?? null;
        const ticket = {
          id: `T-${tickets.length + 1}`,
          title: body.title,
          body: typeof body.body === 'string' ? body.body : '',
          externalId,
          createdAt: new Date().toISOString(),
        };
        tickets.push(ticket);
        if (dropCreates > 0) {
          dropCreates--;
          // Committed, but the caller never hears: the outcome is unknown to it.
          return req.socket.destroy();
        }
        return send(res, 201, ticket);
      }
      if (req.method === 'GET' && url.pathname === '/tickets') {
        const externalId = url.searchParams.get('externalId');
        const title = url.searchParams.get('title');
        const data = tickets.filter(
          (t) =>
            (externalId === null || t.externalId === externalId) && (title === null || t.title === title),
        );
        return send(res, 200, { total: data.length, data });
      }
      const one = /^\/tickets\/(T-\d+)$/.exec(url.pathname);
      if (req.method === 'GET' && one) {
        const ticket = tickets.find((t) => t.id === one[1]);
        return ticket ? send(res, 200, ticket) : send(res, 404, { error: 'no such ticket' });
      }
      if (req.method === 'GET' && url.pathname === '/__stats')
        return send(res, 200, { tickets: tickets.length, createCalls });
      return send(res, 404, { error: 'not found' });
    } catch (error) {
      return send(res, 400, { error: String(error) });
    }
  });

  return new Promise((resolve) => {
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        tickets,
        stats: () => ({ tickets: tickets.length, createCalls }),
        dropNextCreates: (n) => {
          dropCreates = n;
        },
        reset: () => {
          tickets.length = 0;
          createCalls = 0;
          dropCreates = 0;
        },
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

module.exports = { startTicketTracker };

if (require.main === module) {
  startTicketTracker({ port: Number(process.argv[2] ?? 4020) }).then((tracker) =>
    process.stdout.write(`ticket tracker listening on ${tracker.url}\n`),
  );
}
