import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OtelTracing } from './otel-tracing';
import { PinnedIds } from './pinned-ids';
import { attemptSpanId, taskRootSpanId, taskTraceId } from './trace-ids';

function tracingWith(capture: boolean) {
  const exporter = new InMemorySpanExporter();
  const ids = new PinnedIds();
  const provider = new BasicTracerProvider({
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const scrub = (text: string) => text.replaceAll('sk-secret-value', '[redacted]');
  return { exporter, tracing: new OtelTracing(provider, ids, capture, scrub, 'test') };
}

describe('OtelTracing', () => {
  it('places root, attempt and child spans in the trace derived from the task id', () => {
    const { exporter, tracing } = tracingWith(false);
    tracing.startTaskRoot('task-1', 'task.create').end();
    tracing.startAttempt('task-1', 2, { attributes: { 'vigil.attempt': 2 } }).end();
    const slice = tracing.start('vigil.slice', { taskId: 'task-1', attempt: 2 });
    const call = tracing.start('chat scripted', slice, { kind: 'client' });
    call.end();
    slice.end();
    // Another process's span of the same attempt: same trace, same parent, no shared state.
    tracing.start('vigil.watcher.recover', { taskId: 'task-1', attempt: 2 }).end();

    const spans = exporter.getFinishedSpans();
    const byName = Object.fromEntries(spans.map((span) => [span.name, span]));
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
      new Set([taskTraceId('task-1')]),
    );
    expect(byName['task.create'].spanContext().spanId).toBe(taskRootSpanId('task-1'));
    expect(byName['task.create'].parentSpanContext).toBeUndefined();
    expect(byName['vigil.attempt'].spanContext().spanId).toBe(attemptSpanId('task-1', 2));
    expect(byName['vigil.attempt'].parentSpanContext?.spanId).toBe(taskRootSpanId('task-1'));
    expect(byName['vigil.slice'].parentSpanContext?.spanId).toBe(attemptSpanId('task-1', 2));
    expect(byName['vigil.watcher.recover'].parentSpanContext?.spanId).toBe(attemptSpanId('task-1', 2));
    expect(byName['chat scripted'].parentSpanContext?.spanId).toBe(
      byName['vigil.slice'].spanContext().spanId,
    );
    // Ordinary spans get random ids, not the pinned ones.
    expect(byName['vigil.slice'].spanContext().spanId).not.toBe(attemptSpanId('task-1', 2));
  });

  it('gives a traceparent of the span itself and scrubs an error message', () => {
    const { exporter, tracing } = tracingWith(false);
    const span = tracing.start('webhook', { taskId: 't' });
    const header = span.traceparent();
    span.fail(new Error('refused with key sk-secret-value'));
    span.end();
    span.end();
    const [done] = exporter.getFinishedSpans();
    expect(header).toBe(`00-${taskTraceId('t')}-${done.spanContext().spanId}-01`);
    expect(done.status).toEqual({ code: 2, message: 'refused with key [redacted]' });
    expect(done.attributes['error.type']).toBe('Error');
    expect(done.events[0].attributes?.['exception.message']).toBe('refused with key [redacted]');
  });

  it('records content only when capture is on, scrubbed and bounded', () => {
    expect(tracingWith(false).tracing.content('the prompt')).toBeUndefined();
    const { tracing } = tracingWith(true);
    expect(tracing.content({ key: 'sk-secret-value' })).toBe('{"key":"[redacted]"}');
    expect(tracing.content('x'.repeat(20_000))).toHaveLength(16_385);
  });

  it("links a span to another task's root (a child task to its parent)", () => {
    const { exporter, tracing } = tracingWith(false);
    tracing.startTaskRoot('child', 'task.create', { linkedTasks: ['parent'] }).end();
    const [done] = exporter.getFinishedSpans();
    expect(done.links[0].context).toMatchObject({
      traceId: taskTraceId('parent'),
      spanId: taskRootSpanId('parent'),
    });
  });
});
