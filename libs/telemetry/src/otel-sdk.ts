import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TracingSettings, TracingTarget } from './tracing-settings';
import { OtelTracing } from './otel-tracing';
import { PinnedIds } from './pinned-ids';

/**
 * The SDK as Vigil runs it. The exporters read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS
 * and _TIMEOUT themselves, the batch processor OTEL_BSP_*, the resource OTEL_RESOURCE_ATTRIBUTES.
 * No global provider or context manager is registered: spans get their parents explicitly, so
 * nothing patches modules or runs promise hooks on the hot path.
 */
export function startOtelTracing(settings: TracingSettings, target: TracingTarget): OtelTracing {
  const exporter =
    settings.otelProtocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const ids = new PinnedIds();
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: settings.otelServiceName ?? `vigil-${target.app}`,
    [ATTR_SERVICE_VERSION]: target.version,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return new OtelTracing(provider, ids, settings.otelCaptureContent, target.scrub, target.version);
}
