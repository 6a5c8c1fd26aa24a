import type { TracingSettings, TracingTarget } from './tracing-settings';
import { NOOP_TRACING, type Tracing } from './tracing';

export type { TracingSettings, TracingTarget } from './tracing-settings';

/**
 * The process's tracing (docs/observability.md, "Pointing Vigil at a collector"): the no-op when
 * no OTLP endpoint is configured — the SDK is then never even loaded — else the OpenTelemetry SDK
 * with a batch span processor (OTEL_BSP_* read by the SDK) and the OTLP exporter of the protocol.
 */
export function createTracing(settings: TracingSettings, target: TracingTarget): Tracing {
  if (!settings.otelEndpoint) return NOOP_TRACING;
  // Loaded only here: a process without an endpoint keeps the SDK out of its module graph.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startOtelTracing } = require('./otel-sdk') as typeof import('./otel-sdk');
  return startOtelTracing(settings, target);
}
