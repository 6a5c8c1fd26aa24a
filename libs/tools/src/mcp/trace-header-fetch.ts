/**
 * The fetch of a streamable HTTP MCP transport: a `tools/call` carrying a `traceparent` in its
 * `_meta` (mcp-tool.ts) also sends it as the W3C header, so an HTTP server instrumented with
 * OpenTelemetry joins the task's trace without reading MCP messages (docs/observability.md,
 * "Trace context going out"). One connection serves many tasks' calls, so the header is taken
 * from each request itself, never from the connection.
 */
export function traceHeaderFetch(
  base: (url: string | URL, init?: RequestInit) => Promise<Response> = fetch,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) => {
    const traceparent = typeof init?.body === 'string' ? traceparentOf(init.body) : undefined;
    if (!traceparent) return base(url, init);
    const headers = new Headers(init!.headers);
    headers.set('traceparent', traceparent);
    return base(url, { ...init, headers });
  };
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The `params._meta.traceparent` of a JSON-RPC request body, when it has a valid one. */
function traceparentOf(body: string): string | undefined {
  // Most messages carry none: no parse for them.
  if (!body.includes('"traceparent"')) return undefined;
  try {
    const message = JSON.parse(body) as { params?: { _meta?: { traceparent?: unknown } } };
    const value = message.params?._meta?.traceparent;
    return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
  } catch {
    // A batch or a body that is not JSON: sent as it is, without the header.
    return undefined;
  }
}
