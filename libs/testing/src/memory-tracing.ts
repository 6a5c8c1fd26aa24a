import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Tracing } from '@vigil/telemetry';
import { OtelTracing } from '@vigil/telemetry/otel-tracing';
import { PinnedIds } from '@vigil/telemetry/pinned-ids';

/**
 * Vigil's real OtelTracing over the SDK, its spans kept in memory as each ends (no exporter, no
 * network): for unit specs that read what a piece of code traced.
 */
export function memoryTracing(options: { captureContent?: boolean; scrub?: (text: string) => string } = {}): {
  tracing: Tracing;
  spans: () => ReadableSpan[];
} {
  const exporter = new InMemorySpanExporter();
  const ids = new PinnedIds();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracing = new OtelTracing(
    provider,
    ids,
    options.captureContent ?? false,
    options.scrub ?? ((text) => text),
    'test',
  );
  return { tracing, spans: () => exporter.getFinishedSpans() };
}
