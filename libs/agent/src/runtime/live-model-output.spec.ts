import {
  EXPIRY_REFRESH_MS,
  StaleAttemptError,
  TaskNotActiveError,
  type LiveEvent,
  type LiveOutputBatch,
} from '@vigil/tasks';
import { DrainDeadlineError, SliceAbortedError } from './active-slices';
import { HungCallError } from './call-watchdog';
import {
  abandonReasonOf,
  FLUSH_CHARS,
  FLUSH_INTERVAL_MS,
  LiveModelOutput,
  UNWATCHED_TEXT_KEPT,
} from './live-model-output';

/** A channel that records what it is given; each publish stays unanswered until the test answers it. */
class RecordingChannel {
  readonly published: { taskId: string; events: LiveEvent[] }[] = [];
  readonly expired: boolean[] = [];
  publishes = 0;
  private readonly pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  publish(batches: readonly LiveOutputBatch[]): Promise<void> {
    this.publishes++;
    for (const { taskId, events, expire } of batches) {
      this.published.push({ taskId, events: [...events] });
      this.expired.push(expire);
    }
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }
  answerAll(error?: Error): void {
    for (const { resolve, reject } of this.pending.splice(0)) {
      if (error) reject(error);
      else resolve();
    }
  }
  get events(): LiveEvent[] {
    return this.published.flatMap((p) => p.events);
  }
}

/** Which tasks someone watches, as the Worker's WatchedTasks would answer. */
class Watching {
  readonly tasks = new Set<string>(['t1', 'ta', 'tb']);
  readonly asked: string[] = [];
  watched(taskId: string): boolean {
    this.asked.push(taskId);
    return this.tasks.has(taskId);
  }
}

/** Lets the publish of this turn go out (setImmediate) and its answer come back. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveModelOutput: coalesced, batched, fire-and-forget live output', () => {
  let channel: RecordingChannel;
  let output: LiveModelOutput;
  let watching: Watching;
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    channel = new RecordingChannel();
    watching = new Watching();
    output = new LiveModelOutput(channel, watching);
  });
  afterEach(() => {
    output.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('a quick call is one event: its whole text, final, from offset 0', async () => {
    const call = output.forSlice('t1', 2).open();
    for (const piece of ['Next: ', 'noop_step ', '(step:0).']) call.text(piece);
    call.end();
    expect(channel.published).toHaveLength(0);
    await settle();
    expect(channel.published).toEqual([
      {
        taskId: 't1',
        events: [
          {
            type: 'model.delta',
            attempt: 2,
            callId: call.callId,
            text: 'Next: noop_step (step:0).',
            offset: 0,
            final: true,
          },
        ],
      },
    ]);
  });

  it('what many calls hand over in one turn goes out in one publish, each task’s events together', async () => {
    const a = output.forSlice('ta', 1);
    const b = output.forSlice('tb', 1);
    for (const [slice, text] of [
      [a, 'one'],
      [b, 'two'],
      [a, 'three'],
    ] as const) {
      const call = slice.open();
      call.text(text);
      call.end();
    }
    await settle();
    expect(channel.publishes).toBe(1);
    expect(
      channel.published.map(({ taskId, events }) => [
        taskId,
        events.map((e) => (e as { text: string }).text),
      ]),
    ).toEqual([
      ['ta', ['one', 'three']],
      ['tb', ['two']],
    ]);
  });

  it('publishes every FLUSH_INTERVAL_MS or FLUSH_CHARS, one publish in flight per call, offsets adding up', async () => {
    const call = output.forSlice('t1', 1).open();
    call.text('a'.repeat(FLUSH_CHARS));
    await settle();
    expect(channel.events).toEqual([expect.objectContaining({ text: 'a'.repeat(FLUSH_CHARS), offset: 0 })]);
    // Unanswered: more text waits in the buffer, even past the interval and the size.
    call.text('b'.repeat(FLUSH_CHARS));
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS * 2);
    await settle();
    expect(channel.published).toHaveLength(1);
    channel.answerAll();
    await settle();
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS);
    await settle();
    expect(channel.events[1]).toEqual(
      expect.objectContaining({ text: 'b'.repeat(FLUSH_CHARS), offset: FLUSH_CHARS }),
    );
    channel.answerAll();
    await settle();
    // A little text is published by the timer once the interval passed.
    call.text('c');
    await settle();
    expect(channel.published).toHaveLength(2);
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS);
    await settle();
    expect(channel.events[2]).toEqual(expect.objectContaining({ text: 'c', offset: 2 * FLUSH_CHARS }));
    call.end();
    await settle();
    // Nothing left: the final delta is empty, and closes the call.
    expect(channel.events[3]).toEqual(
      expect.objectContaining({ text: '', offset: 2 * FLUSH_CHARS + 1, final: true }),
    );
    call.text('late');
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS);
    await settle();
    expect(channel.events).toHaveLength(4);
  });

  it('sets the key’s expiry with a slice’s first publish, then once per EXPIRY_REFRESH_MS', async () => {
    const slice = output.forSlice('t1', 1);
    const write = async (calls = slice) => {
      const call = calls.open();
      call.text('x');
      call.end();
      await settle();
    };
    for (let i = 0; i < 3; i++) await write();
    jest.advanceTimersByTime(EXPIRY_REFRESH_MS);
    await write();
    await write(output.forSlice('t1', 1));
    expect(channel.expired).toEqual([true, false, false, true, true]);
  });

  it('past MAX_PUBLISHES_IN_FLIGHT unanswered, text waits in its buffer and none is lost', async () => {
    const calls = Array.from({ length: 1_025 }, () => output.forSlice('t1', 1).open());
    for (const call of calls) call.text('x'.repeat(FLUSH_CHARS));
    await settle();
    expect(channel.events).toHaveLength(1_024);
    channel.answerAll();
    await settle();
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS);
    await settle();
    expect(channel.events).toHaveLength(1_025);
    expect(channel.events.at(-1)).toEqual(
      expect.objectContaining({ callId: calls[1_024].callId, offset: 0 }),
    );
  });

  it('a call that wrote nothing publishes nothing when it ends', async () => {
    output.forSlice('t1', 1).open().end();
    await settle();
    expect(channel.published).toHaveLength(0);
  });

  it('an abandoned call drops its unpublished text and says why', async () => {
    const calls = output.forSlice('t1', 3);
    const first = calls.open();
    const second = calls.open();
    expect(second.callId).not.toBe(first.callId);
    first.text('half a sente');
    first.abandon('stopped');
    first.end();
    await settle();
    expect(channel.events).toEqual([
      { type: 'model.call_abandoned', attempt: 3, callId: first.callId, reason: 'stopped' },
    ]);
  });

  it('a slice opening looks its task up before its first call', () => {
    output.forSlice('t9', 1);
    expect(watching.asked).toEqual(['t9']);
  });

  it('publishes nothing while nobody watches: not the text, its end or its abandonment', async () => {
    const calls = output.forSlice('t9', 1);
    const ended = calls.open();
    ended.text('x'.repeat(FLUSH_CHARS * 3));
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS * 3);
    ended.end();
    const cut = calls.open();
    cut.text('half');
    cut.abandon('stopped');
    await settle();
    expect(channel.publishes).toBe(0);
  });

  it('a watcher who comes mid-call gets the call’s text from its start, then the rest as it comes', async () => {
    const call = output.forSlice('t9', 1).open();
    call.text('Before anyone watched. ');
    call.text('Still nobody. ');
    await settle();
    expect(channel.publishes).toBe(0);
    watching.tasks.add('t9');
    call.text('x'.repeat(FLUSH_CHARS));
    await settle();
    call.text('The end.');
    call.end();
    channel.answerAll();
    await settle();
    const text = channel.events.map((event) => (event.type === 'model.delta' ? event.text : '')).join('');
    expect(text).toBe(`Before anyone watched. Still nobody. ${'x'.repeat(FLUSH_CHARS)}The end.`);
    expect(channel.events[0]).toEqual(expect.objectContaining({ offset: 0 }));
    expect(channel.events.at(-1)).toEqual(expect.objectContaining({ final: true }));
  });

  it('a watcher who comes while the call waits on its model gets the text kept so far at the next tick', async () => {
    const call = output.forSlice('t9', 1).open();
    call.text('Thinking');
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS * 2);
    await settle();
    expect(channel.publishes).toBe(0);
    watching.tasks.add('t9');
    jest.advanceTimersByTime(FLUSH_INTERVAL_MS);
    await settle();
    expect(channel.events).toEqual([expect.objectContaining({ text: 'Thinking', offset: 0 })]);
  });

  it('keeps at most UNWATCHED_TEXT_KEPT of an unwatched call, the offset saying where it starts', async () => {
    const call = output.forSlice('t9', 1).open();
    call.text('a'.repeat(UNWATCHED_TEXT_KEPT));
    call.text('b'.repeat(10));
    watching.tasks.add('t9');
    call.end();
    await settle();
    expect(channel.events).toEqual([
      expect.objectContaining({
        text: 'a'.repeat(UNWATCHED_TEXT_KEPT - 10) + 'b'.repeat(10),
        offset: 10,
        final: true,
      }),
    ]);
  });

  it('a call whose text went out ends for its watcher even after the watcher left', async () => {
    const call = output.forSlice('t1', 1).open();
    call.text('x'.repeat(FLUSH_CHARS));
    await settle();
    channel.answerAll();
    await settle();
    watching.tasks.delete('t1');
    call.text('unseen');
    call.end();
    await settle();
    expect(channel.events.at(-1)).toEqual(expect.objectContaining({ text: 'unseen', final: true }));
  });

  it('a failing publish is logged, never thrown at the call', async () => {
    const warn = jest.spyOn(output['logger'], 'warn').mockImplementation(() => undefined);
    const call = output.forSlice('t1', 1).open();
    call.text('x'.repeat(FLUSH_CHARS));
    await settle();
    channel.answerAll(new Error('READONLY'));
    await settle();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('READONLY'));
    call.text('y');
    call.end();
    await settle();
    expect(channel.events.at(-1)).toEqual(expect.objectContaining({ text: 'y', final: true }));
  });
});

describe('abandonReasonOf', () => {
  const call = { kind: 'model' as const, name: 'opus', since: 0, deadlineAt: 1 };
  it.each([
    [new SliceAbortedError('task was stopped', 'stop'), 'stopped'],
    [new SliceAbortedError('task was paused', 'pause'), 'paused'],
    [new SliceAbortedError('task was stopped', 'recover'), 'recovered'],
    [new HungCallError(call, 'deadline'), 'deadline'],
    [new HungCallError(call, 'watcher'), 'deadline'],
    [new DrainDeadlineError(1000), 'drain'],
    [new StaleAttemptError('t1', 1, 2), 'recovered'],
    [new TaskNotActiveError('t1', 'cancelled'), 'stopped'],
    [new TaskNotActiveError('t1', 'paused'), 'paused'],
    [new TaskNotActiveError('t1', 'queued'), 'recovered'],
    [new Error('socket hang up'), 'failed'],
  ])('%s (%s)', (reason, expected) => {
    expect(abandonReasonOf(reason)).toBe(expected);
  });
});
