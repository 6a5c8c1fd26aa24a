import { inMemoryLifecycle } from '@vigil/testing';

const task = { id: 'tsk_1', tenantId: 'acme', sliceCount: 3 };
const NOW = 1_700_000_000_000;

describe('TaskLifecycle: waiting for a kind version', () => {
  it('awaitKindVersion: a queued task paused by the Worker of its job, fenced, naming the version', async () => {
    const { lifecycle, store, slices, signals } = inMemoryLifecycle();
    await lifecycle.awaitKindVersion(task, { attempt: 2, kind: 'report', version: 1, now: NOW });
    expect(store.only()).toEqual({
      operation: 'await_kind_version',
      to: 'paused',
      attempt: 2,
      from: ['queued'],
      statusReason: 'kind_version_unavailable',
      eventData: {
        by: 'worker',
        reason: 'kind_version_unavailable',
        detail: 'no running Worker runs report version 1',
      },
      now: NOW,
    });
    expect([slices.published, slices.republished, signals.sent]).toEqual([[], [], []]);
  });

  it('continueOnKindVersion: queued again at the same attempt, its slice published again', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    store.replyNext({ attempt: 2 });
    await lifecycle.continueOnKindVersion(task, { now: NOW });
    expect(store.only()).toEqual({
      operation: 'continue_on_kind_version',
      to: 'queued',
      from: ['paused'],
      eventData: { by: 'worker' },
      now: NOW,
    });
    expect(slices.republished).toEqual([{ taskId: 'tsk_1', attempt: 2, slice: 4, reason: 'resumed' }]);
  });
});
