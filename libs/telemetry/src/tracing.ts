/**
 * What the rest of Vigil sees of tracing (docs/observability.md): spans placed in a task's trace
 * by the task's id, attributes, events, an error, an end. The OpenTelemetry SDK stays behind this
 * interface and is loaded only when an OTLP endpoint is configured; otherwise every call lands on
 * the no-op below.
 */

export type AttributeValue = string | number | boolean | string[] | number[];
/** Attributes of a span or event; `undefined` values are left out. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | undefined>>;

/** Where a span hangs: the task's root, one of its attempts, or another span of this process. */
export type SpanParent = { taskId: string; attempt?: number } | TraceSpan;

export interface SpanOptions {
  /** `client` for a call out of the process (a model, a tool, a webhook); `internal` otherwise. */
  kind?: 'internal' | 'client' | 'server' | 'producer' | 'consumer';
  attributes?: SpanAttributes;
  /** Epoch milliseconds; now when absent. */
  startTime?: number;
  /** Other tasks this span relates to (a child task's creation links to its parent's trace). */
  linkedTasks?: readonly string[];
}

export interface TraceSpan {
  /** False for the no-op span: callers may skip building attributes that cost something. */
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  event(name: string, attributes?: SpanAttributes): void;
  /** Marks the span failed: status ERROR, `error.type`, and an `exception` event with a scrubbed message. */
  fail(error: unknown, type?: string): void;
  /** Ends the span (epoch ms, now when absent). A second end is ignored. */
  end(endTime?: number): void;
  /** The W3C `traceparent` of this span, for a request made under it; undefined when not recording. */
  traceparent(): string | undefined;
}

export interface Tracing {
  readonly enabled: boolean;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts and tool content may be recorded. */
  readonly capturesContent: boolean;
  /** The task's root span, its trace and span ids derived from the task id (the API's creation). */
  startTaskRoot(taskId: string, name: string, options?: SpanOptions): TraceSpan;
  /** An attempt's span, its id derived from (task, attempt): slices of the attempt hang under it. */
  startAttempt(taskId: string, attempt: number, options?: SpanOptions): TraceSpan;
  start(name: string, parent: SpanParent, options?: SpanOptions): TraceSpan;
  /**
   * Content for a span attribute: scrubbed of secrets and bounded, or undefined when content
   * capture is off (the default), so callers write `span.set({x: tracing.content(v)})` unguarded.
   */
  content(value: unknown): string | undefined;
  /** Exports what is buffered and stops; later spans are dropped. */
  shutdown(): Promise<void>;
}

/** Nest token of the process's Tracing (provided by PlatformModule). */
export const TRACING = Symbol('TRACING');

const NOOP_SPAN: TraceSpan = Object.freeze({
  recording: false,
  set: () => undefined,
  event: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  traceparent: () => undefined,
});

/** Tracing off: one shared frozen span, nothing allocated or measured per call. */
export const NOOP_TRACING: Tracing = Object.freeze({
  enabled: false,
  capturesContent: false,
  startTaskRoot: () => NOOP_SPAN,
  startAttempt: () => NOOP_SPAN,
  start: () => NOOP_SPAN,
  content: () => undefined,
  shutdown: () => Promise.resolve(),
});

export { NOOP_SPAN };
