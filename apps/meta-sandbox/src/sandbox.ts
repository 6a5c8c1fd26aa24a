import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { handleAdmin } from './admin';
import { GraphError, invalidToken, missingToken, newFbtraceId, rateLimited, transientError } from './errors';
import { serializeFaultConfig } from './fault-config';
import { FaultEngine, type FaultStats } from './faults';
import { extractToken, mergeParams, parseBody, readBody } from './request';
import { sendJson } from './respond';
import { accountOf, routeGraph, stripVersion } from './router';
import { snapshot, type SandboxSnapshot } from './snapshot';
import { SandboxStore } from './store';
import type { DuplicateGroup, FaultConfig } from './types';

export interface MetaSandboxOptions {
  accessToken: string;
  faults?: FaultConfig;
  seed?: number;
  /** Version prefix used in `baseUrl` (any `/vNN.N` is accepted). Default `v21.0`. */
  apiVersion?: string;
}

export interface SandboxAddress {
  port: number;
  /** Graph base URL including the version, e.g. `http://127.0.0.1:4010/v21.0`. */
  baseUrl: string;
  /** Server origin, e.g. `http://127.0.0.1:4010` (admin routes live under `/__sandbox/`). */
  origin: string;
}

/** In-memory fake of the Meta Marketing API subset Vigil uses, with seeded fault injection. */
export class MetaSandbox {
  readonly store = new SandboxStore();
  private readonly engine: FaultEngine;
  private readonly initialFaults: FaultConfig;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closed = false;
  private origin = 'http://127.0.0.1';

  constructor(private readonly opts: MetaSandboxOptions) {
    this.initialFaults = opts.faults ?? {};
    this.engine = new FaultEngine(this.initialFaults, opts.seed ?? 1);
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<SandboxAddress> {
    if (this.server) throw new Error('MetaSandbox is already listening');
    this.closed = false;
    const server = createServer((req, res) => void this.onRequest(req, res));
    // As the Graph API's own front ends: idle sockets outlive a client's idle timeout (fetch's 4 s),
    // so a request never lands on a socket the sandbox is closing.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    this.origin = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    return {
      port: actualPort,
      origin: this.origin,
      baseUrl: `${this.origin}/${this.opts.apiVersion ?? 'v21.0'}`,
    };
  }

  /** Stops listening, destroys every open socket (including hung requests) and cancels pending delays. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.closed = true;
    this.server = undefined;
    for (const [timer, release] of this.timers) {
      clearTimeout(timer);
      release();
    }
    this.timers.clear();
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await done;
  }

  objects(): SandboxSnapshot {
    return snapshot(this.store);
  }

  duplicates(): DuplicateGroup[] {
    return this.store.duplicates();
  }

  setFaults(faults: FaultConfig): void {
    this.engine.set(faults);
  }

  faults(): FaultConfig {
    return this.engine.get();
  }

  stats(): FaultStats {
    return structuredClone(this.engine.stats);
  }

  /** Empties the store and restores the construction-time faults, stats and random sequence. */
  reset(): void {
    this.store.reset();
    this.engine.reset(this.initialFaults);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ? `http://${req.headers.host}` : this.origin;
    const url = new URL(req.url ?? '/', host);
    try {
      if (url.pathname.startsWith('/__sandbox/')) {
        await handleAdmin(
          {
            store: this.store,
            snapshot: () => this.objects(),
            stats: () => this.stats(),
            faultsJson: () => serializeFaultConfig(this.faults()),
            setFaults: (f) => this.setFaults(f),
            reset: () => this.reset(),
          },
          req,
          res,
          url,
        );
        return;
      }
      await this.onGraph(req, res, url, host);
    } catch (err) {
      const error =
        err instanceof GraphError ? err : new GraphError(500, 1, 'An unknown error has occurred.');
      this.respond(res, error.httpStatus, error.toBody(), {});
    }
  }

  private async onGraph(req: IncomingMessage, res: ServerResponse, url: URL, origin: string): Promise<void> {
    const body = await readBody(req);
    const method = (req.method ?? 'GET').toUpperCase();
    const plan = this.engine.plan(method, url.pathname);
    if (plan.latencyMs > 0) await this.delay(plan.latencyMs);
    if (this.closed) return;
    if (plan.fault === 'hang') {
      this.engine.count('hang');
      this.engine.countStatus('hung');
      return; // never answered; the socket stays open until the client gives up or close() runs
    }
    if (plan.fault === 'drop') {
      this.engine.count('drop');
      this.engine.countStatus('dropped');
      req.socket.destroy();
      return;
    }
    const path = stripVersion(url.pathname);
    const accountId = accountOf(path, this.store);
    let throttled = false;
    try {
      if (plan.fault === 'transient500') {
        this.engine.count('transient500');
        throw transientError();
      }
      const params = mergeParams(url.searchParams, parseBody(req.headers['content-type'], body));
      const token = extractToken(req, params);
      if (!token) throw missingToken();
      if (token !== this.opts.accessToken) throw invalidToken();
      delete params.access_token;
      const code = this.engine.rateLimit(plan.forceRateLimit);
      if (code !== undefined) {
        throttled = true;
        this.engine.count('rateLimit');
        throw rateLimited(code);
      }
      const result = routeGraph({ method, path, params, url }, this.store, origin);
      if (plan.commitThenDrop && method === 'POST' && result.created) {
        this.engine.count('commitThenDrop');
        this.engine.countStatus('dropped');
        req.socket.destroy();
        return;
      }
      this.respond(res, 200, result.body, this.engine.usageHeaders(accountId, false));
    } catch (err) {
      if (!(err instanceof GraphError)) throw err;
      this.respond(res, err.httpStatus, err.toBody(), this.engine.usageHeaders(accountId, throttled));
    }
  }

  private respond(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
    const traceId =
      typeof body === 'object' && body !== null && 'error' in body
        ? (body as { error: { fbtrace_id: string } }).error.fbtrace_id
        : newFbtraceId();
    this.engine.countStatus(status);
    sendJson(res, status, body, { ...headers, 'x-fb-trace-id': traceId });
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.set(timer, resolve);
    });
  }
}
