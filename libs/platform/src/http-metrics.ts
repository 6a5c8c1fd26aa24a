import type { NextFunction, Request, Response } from 'express';
import { Histogram, Registry } from 'prom-client';

/** The route label of a request nothing matched (a 404 of an unknown path). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * `vigil_http_request_duration_seconds{method, route, status}`: every HTTP request, labelled by
 * the route pattern that matched (`/v1/tasks/:id`, never the raw URL, so ids do not explode the
 * label set). A middleware, not an interceptor: requests refused by a guard (401, 429) count too.
 */
export function httpMetricsMiddleware(registry: Registry) {
  const existing = registry.getSingleMetric('vigil_http_request_duration_seconds');
  const histogram =
    (existing as Histogram<'method' | 'route' | 'status'> | undefined) ??
    new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'HTTP requests by method, matched route pattern and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.once('finish', () => record(request, response, started));
    // A client that goes away (an SSE stream closed) never finishes the response.
    response.once('close', () => record(request, response, started));
    next();
  };

  function record(request: Request, response: Response, started: bigint): void {
    const marked = request as Request & { vigilMetricRecorded?: boolean };
    if (marked.vigilMetricRecorded) return;
    marked.vigilMetricRecorded = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    histogram.observe(
      { method: request.method, route: routeOf(request), status: String(response.statusCode) },
      seconds,
    );
  }
}

function routeOf(request: Request): string {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${request.baseUrl ?? ''}${route.path}`;
  return UNMATCHED_ROUTE;
}
