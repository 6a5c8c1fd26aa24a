import { VigilApiError, VigilConnectionError } from './client-errors';
import { followEvents, type OpenEventStream } from './event-follower';
import { EventStreamProtocolError, type TaskEventFrame } from './task-events';

/** One SSE frame as the API writes it (libs/notify sse-frame.ts). */
function frame(id: string, type: string, data: Record<string, unknown> = {}): string {
  const payload = {
    id,
    type,
    taskId: 'tsk_1',
    attempt: 1,
    at: '2026-01-01T00:00:00.000Z',
    status: 'running',
    from: 'queued',
    data,
  };
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** What one connection does: send these chunks, then end cleanly or fail. */
interface Script {
  chunks?: string[];
  thenFail?: Error;
  refuse?: Error;
}

/** A scripted server: each open takes the next script and records the Last-Event-ID it was sent. */
function scripted(scripts: Script[]) {
  const opened: (string | undefined)[] = [];
  const signals: AbortSignal[] = [];
  const open: OpenEventStream = async (lastEventId, signal) => {
    opened.push(lastEventId);
    signals.push(signal);
    const script = scripts.shift();
    if (!script) throw new Error(`unexpected connection ${opened.length}`);
    if (script.refuse) throw script.refuse;
    return (async function* () {
      for (const chunk of script.chunks ?? []) yield chunk;
      if (script.thenFail) throw script.thenFail;
    })();
  };
  return { open, opened, signals };
}

async function collect(iterable: AsyncIterable<TaskEventFrame>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of iterable) seen.push(`${event.id} ${event.type}`);
  return seen;
}

const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const quick = { maxDelayMs: 1 };

describe('followEvents (the SSE iterator with Last-Event-ID resume)', () => {
  it('resumes a broken stream after the last event it delivered, so nothing is missed or repeated', async () => {
    const server = scripted([
      {
        chunks: ['retry: 1\n\n', frame('1-0', 'task.started'), frame('2-0', 'task.progress')],
        thenFail: reset(),
      },
      {
        chunks: [
          frame('3-0', 'task.progress'),
          frame('4-0', 'task.completed'),
          frame('5-0', 'task.progress'),
        ],
      },
    ]);
    const reconnects: unknown[] = [];
    const seen = await collect(
      followEvents(server.open, { ...quick, onReconnect: (info) => reconnects.push(info.lastEventId) }),
    );
    expect(seen).toEqual([
      '1-0 task.started',
      '2-0 task.progress',
      '3-0 task.progress',
      '4-0 task.completed',
    ]);
    expect(server.opened).toEqual([undefined, '2-0']);
    expect(reconnects).toEqual(['2-0']);
  });

  it('starts after the Last-Event-ID it is given', async () => {
    const server = scripted([{ chunks: [frame('9-0', 'task.cancelled')] }]);
    expect(await collect(followEvents(server.open, { lastEventId: '8-0' }))).toEqual(['9-0 task.cancelled']);
    expect(server.opened).toEqual(['8-0']);
  });

  it('parses frames split anywhere across chunks and ignores heartbeat comments', async () => {
    const text = `: heartbeat\n\n${frame('1-0', 'task.progress', { completedUnits: 3 })}${frame('2-0', 'task.failed')}`;
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    const server = scripted([{ chunks }]);
    const events: TaskEventFrame[] = [];
    for await (const event of followEvents(server.open)) events.push(event);
    expect(events.map((event) => [event.id, event.type, event.data])).toEqual([
      ['1-0', 'task.progress', { completedUnits: 3 }],
      ['2-0', 'task.failed', {}],
    ]);
  });

  it('reconnects after a stream that ended cleanly before the terminal event (an API restart)', async () => {
    const server = scripted([
      { chunks: [frame('1-0', 'task.progress')] },
      { refuse: new VigilConnectionError('http://127.0.0.1:1', 'ECONNREFUSED', reset()) },
      { chunks: [frame('2-0', 'task.completed')] },
    ]);
    expect(await collect(followEvents(server.open, quick))).toEqual([
      '1-0 task.progress',
      '2-0 task.completed',
    ]);
    expect(server.opened).toEqual([undefined, '1-0', '1-0']);
  });

  it('ends when a connection ends cleanly without an event: the task had already ended', async () => {
    const server = scripted([{ chunks: ['retry: 1000\n\n', ': heartbeat\n\n'] }]);
    expect(await collect(followEvents(server.open, { lastEventId: '7-0' }))).toEqual([]);
    expect(server.opened).toEqual(['7-0']);
  });

  it('does not retry a first connection nothing answered: the API is not there', async () => {
    const refused = new VigilConnectionError('http://127.0.0.1:1', 'ECONNREFUSED', reset());
    const server = scripted([{ refuse: refused }]);
    await expect(collect(followEvents(server.open, quick))).rejects.toBe(refused);
    expect(server.opened).toHaveLength(1);
  });

  it('does not retry a refusal for good (a task of another tenant, a bad key)', async () => {
    const notFound = new VigilApiError(
      404,
      'Not Found',
      'task tsk_1 not found',
      'GET /v1/tasks/tsk_1/events',
    );
    const server = scripted([
      { chunks: [frame('1-0', 'task.progress')], thenFail: reset() },
      { refuse: notFound },
    ]);
    await expect(collect(followEvents(server.open, quick))).rejects.toBe(notFound);
    expect(server.opened).toEqual([undefined, '1-0']);
  });

  it('waits as Retry-After says when the API has too many streams open, then goes on', async () => {
    const busy = new VigilApiError(429, 'Too Many Requests', 'too many streams', 'GET', {}, 0.001);
    const server = scripted([{ refuse: busy }, { chunks: [frame('1-0', 'task.completed')] }]);
    const delays: number[] = [];
    const seen = await collect(
      followEvents(server.open, { maxDelayMs: 5, onReconnect: (info) => delays.push(info.delayMs) }),
    );
    expect(seen).toEqual(['1-0 task.completed']);
    expect(delays).toEqual([5]);
  });

  it("waits the server's retry: interval, doubling while reconnecting keeps failing, up to maxDelayMs", async () => {
    const server = scripted([
      { chunks: ['retry: 2\n\n', frame('1-0', 'task.progress')], thenFail: reset() },
      { refuse: reset() },
      { refuse: reset() },
      { refuse: reset() },
      { chunks: [frame('2-0', 'task.completed')] },
    ]);
    const delays: number[] = [];
    await collect(
      followEvents(server.open, { maxDelayMs: 10, onReconnect: (info) => delays.push(info.delayMs) }),
    );
    expect(delays).toEqual([2, 4, 8, 10]);
  });

  it('gives up with the last error once reconnecting has failed for reconnectForMs', async () => {
    const cut = reset();
    const server = scripted([{ chunks: [frame('1-0', 'task.progress')], thenFail: cut }]);
    await expect(collect(followEvents(server.open, { ...quick, reconnectForMs: 0 }))).rejects.toBe(cut);
    expect(server.opened).toHaveLength(1);
  });

  it('names a stream that sends something other than task events, without reconnecting to get it again', async () => {
    const server = scripted([{ chunks: ['id: 1-0\ndata: <html>\n\n'] }]);
    await expect(collect(followEvents(server.open, quick))).rejects.toBeInstanceOf(EventStreamProtocolError);
    expect(server.opened).toHaveLength(1);
  });

  it('ends the connection when the caller stops reading early', async () => {
    const server = scripted([
      { chunks: [frame('1-0', 'task.waiting_on_human'), frame('2-0', 'task.progress')] },
    ]);
    for await (const event of followEvents(server.open)) {
      expect(event.type).toBe('task.waiting_on_human');
      break;
    }
    expect(server.signals[0].aborted).toBe(true);
  });
});
