import { createTracing, type TracingSettings } from './create-tracing';
import { NOOP_TRACING } from './tracing';

// The SDK module must not even be required while tracing is off: requiring it here fails the test.
jest.mock('./otel-sdk', () => {
  throw new Error('the OpenTelemetry SDK was loaded');
});

const off: TracingSettings = {
  otelEndpoint: undefined,
  otelProtocol: 'http/protobuf',
  otelServiceName: undefined,
  otelCaptureContent: true,
};
const target = { app: 'worker', version: 'test', scrub: (text: string) => text };

describe('tracing off (no OTLP endpoint)', () => {
  it('is the no-op, without loading the SDK', () => {
    expect(createTracing(off, target)).toBe(NOOP_TRACING);
    // The guard above is real: with an endpoint, the SDK module is required.
    expect(() => createTracing({ ...off, otelEndpoint: 'http://127.0.0.1:4318' }, target)).toThrow(
      'the OpenTelemetry SDK was loaded',
    );
  });

  it('hands out one frozen span that records nothing and propagates nothing', () => {
    const root = NOOP_TRACING.startTaskRoot('t1', 'task.create');
    const attempt = NOOP_TRACING.startAttempt('t1', 1);
    const span = NOOP_TRACING.start('chat', { taskId: 't1', attempt: 1 }, { attributes: { a: 1 } });
    expect(root).toBe(span);
    expect(attempt).toBe(span);
    expect(NOOP_TRACING.start('child', span)).toBe(span);
    expect(span.recording).toBe(false);
    expect(Object.isFrozen(span)).toBe(true);
    span.set({ a: 2 });
    span.event('e');
    span.fail(new Error('x'));
    span.end();
    expect(span.traceparent()).toBeUndefined();
  });

  it('records no content even when capture is asked for', async () => {
    expect(NOOP_TRACING.capturesContent).toBe(false);
    expect(NOOP_TRACING.content({ prompt: 'secret plans' })).toBeUndefined();
    await expect(NOOP_TRACING.shutdown()).resolves.toBeUndefined();
  });
});
