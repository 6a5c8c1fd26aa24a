import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { attemptSpanId, taskRootSpanId, taskTraceId, traceparentOf } from './trace-ids';
import type { PinnedIds } from './pinned-ids';
import type { SpanAttributes, SpanOptions, SpanParent, TraceSpan, Tracing } from './tracing';

/** Content on a span is bounded: a prompt can be hundreds of kilobytes. */
export const CONTENT_LIMIT = 16_384;

const KINDS: Record<NonNullable<SpanOptions['kind']>, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

function cleanAttributes(attributes: SpanAttributes | undefined): Attributes | undefined {
  if (!attributes) return undefined;
  const clean: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) clean[name] = value;
  return clean;
}

/** A task's derived span, as the remote parent every process builds for itself. */
function derivedContext(taskId: string, spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: taskTraceId(taskId),
    spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

class OtelSpan implements TraceSpan {
  readonly recording = true;
  private ended = false;

  constructor(
    readonly span: Span,
    private readonly scrub: (text: string) => string,
  ) {}

  set(attributes: SpanAttributes): void {
    const clean = cleanAttributes(attributes);
    if (clean) this.span.setAttributes(clean);
  }

  event(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, cleanAttributes(attributes));
  }

  fail(error: unknown, type?: string): void {
    const message = this.scrub(error instanceof Error ? error.message : String(error)).slice(0, 2_000);
    const errorType = type ?? (error instanceof Error ? error.name : 'error');
    this.span.setAttribute('error.type', errorType);
    this.span.addEvent('exception', { 'exception.type': errorType, 'exception.message': message });
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(endTime?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end(endTime);
  }

  traceparent(): string {
    const context = this.span.spanContext();
    return traceparentOf(context.traceId, context.spanId, (context.traceFlags & TraceFlags.SAMPLED) !== 0);
  }
}

/** Tracing through the OpenTelemetry SDK (created by createTracing when an endpoint is set). */
export class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly tracer: Tracer;

  constructor(
    private readonly provider: BasicTracerProvider,
    private readonly ids: PinnedIds,
    readonly capturesContent: boolean,
    private readonly scrub: (text: string) => string,
    version: string,
  ) {
    this.tracer = provider.getTracer('vigil', version);
  }

  startTaskRoot(taskId: string, name: string, options: SpanOptions = {}): TraceSpan {
    return this.pinned(taskTraceId(taskId), taskRootSpanId(taskId), () =>
      this.open(name, ROOT_CONTEXT, options, true),
    );
  }

  startAttempt(taskId: string, attempt: number, options: SpanOptions = {}): TraceSpan {
    const parent = derivedContext(taskId, taskRootSpanId(taskId));
    return this.pinned(undefined, attemptSpanId(taskId, attempt), () =>
      this.open('vigil.attempt', parent, options, false),
    );
  }

  start(name: string, parent: SpanParent, options: SpanOptions = {}): TraceSpan {
    return this.open(name, this.contextOf(parent), options, false);
  }

  content(value: unknown): string | undefined {
    if (!this.capturesContent || value === undefined) return undefined;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const scrubbed = this.scrub(text ?? '');
    return scrubbed.length > CONTENT_LIMIT ? `${scrubbed.slice(0, CONTENT_LIMIT)}…` : scrubbed;
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }

  private contextOf(parent: SpanParent): Context {
    if (parent instanceof OtelSpan) return trace.setSpan(ROOT_CONTEXT, parent.span);
    if ('taskId' in parent) {
      const { taskId, attempt } = parent;
      return derivedContext(
        taskId,
        attempt === undefined ? taskRootSpanId(taskId) : attemptSpanId(taskId, attempt),
      );
    }
    // A no-op span as parent (a span made before tracing was on): a root of its own.
    return ROOT_CONTEXT;
  }

  private open(name: string, parent: Context, options: SpanOptions, root: boolean): TraceSpan {
    const links: Link[] | undefined = options.linkedTasks?.map((taskId) => ({
      context: {
        traceId: taskTraceId(taskId),
        spanId: taskRootSpanId(taskId),
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      },
    }));
    const span = this.tracer.startSpan(
      name,
      {
        kind: KINDS[options.kind ?? 'internal'],
        ...(root ? { root: true } : {}),
        ...(options.attributes ? { attributes: cleanAttributes(options.attributes) } : {}),
        ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
        ...(links ? { links } : {}),
      },
      parent,
    );
    return new OtelSpan(span, this.scrub);
  }

  /** startSpan asks the id generator synchronously: the pinned ids are taken by exactly this span. */
  private pinned(traceId: string | undefined, spanId: string, open: () => TraceSpan): TraceSpan {
    this.ids.pin(traceId, spanId);
    try {
      return open();
    } finally {
      this.ids.unpin();
    }
  }
}
