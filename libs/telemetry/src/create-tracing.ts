import { NOOP_TRACING, type Tracing } from './tracing';

/** What createTracing reads: the telemetry section of the config (libs/config) and the app. */
export interface TracingSettings {
  otelEndpoint: string | undefined;
  otelProtocol: 'http/protobuf' | 'http/json';
  otelServiceName: string | undefined;
  otelCaptureContent: boolean;
}

export interface TracingTarget {
  /** `api`, `worker`, `watcher`, `notifier`: the service is `vigil-<app>` unless OTEL_SERVICE_NAME says. */
  app: string;
  /** The code version, as /version shows it. */
  version: string;
  /** Removes secret values from text recorded on a span (libs/platform's scrubbing). */
  scrub: (text: string) => string;
}

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
