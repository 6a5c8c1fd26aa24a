import { createHash } from 'node:crypto';
import { attemptSpanId, taskRootSpanId, taskTraceId, traceparentOf } from './trace-ids';

describe('ids derived from a task id', () => {
  const id = 'tsk_01HZY3J8Q4W5E6R7T8Y9U0I1O2';

  it('makes the trace id the first 16 bytes of SHA-256 of the task id, in hex', () => {
    const expected = createHash('sha256').update(id).digest('hex').slice(0, 32);
    expect(taskTraceId(id)).toBe(expected);
    expect(taskTraceId(id)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives every process the same ids for the same task, and other tasks other ids', () => {
    expect(taskTraceId(id)).toBe(taskTraceId(`${id}`));
    expect(taskTraceId(id)).not.toBe(taskTraceId(`${id}x`));
    expect(attemptSpanId(id, 2)).toBe(attemptSpanId(id, 2));
  });

  it('gives the root and each attempt a span id of 8 bytes, all different', () => {
    const spans = [taskRootSpanId(id), attemptSpanId(id, 1), attemptSpanId(id, 2), attemptSpanId(id, 12)];
    for (const span of spans) expect(span).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(spans).size).toBe(spans.length);
    // Attempt 1 and 12 do not collide through their digits ("1" + "2" vs "12").
    expect(attemptSpanId('a1', 2)).not.toBe(attemptSpanId('a', 12));
  });

  it('writes a W3C traceparent, sampled or not', () => {
    expect(traceparentOf(taskTraceId(id), taskRootSpanId(id))).toBe(
      `00-${taskTraceId(id)}-${taskRootSpanId(id)}-01`,
    );
    expect(traceparentOf('a'.repeat(32), 'b'.repeat(16), false)).toBe(
      `00-${'a'.repeat(32)}-${'b'.repeat(16)}-00`,
    );
  });
});
