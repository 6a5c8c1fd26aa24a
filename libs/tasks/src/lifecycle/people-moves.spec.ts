import { IllegalTransitionError } from '../task-errors';
import { inMemoryLifecycle } from '@vigil/testing';
import type { TaskRecord } from '../task.types';

const task = { id: 'tsk_1', tenantId: 'acme', sliceCount: 3 };
const NOW = 1_700_000_000_000;
const child = (id: string, status: TaskRecord['status']) => ({ id, tenantId: 'acme', status }) as TaskRecord;

describe('TaskLifecycle: people’s and conversations’ moves', () => {
  it('stop: cancelled by the user from any live state, never fenced, Workers told at once', async () => {
    const { lifecycle, store, signals, slices } = inMemoryLifecycle();
    store.replyNext({ due: [{ taskId: 'tsk_2', attempt: 1, slice: 1 }] });
    await lifecycle.stop(task, { now: NOW });
    expect(store.only()).toEqual({
      operation: 'stop',
      to: 'cancelled',
      from: ['queued', 'running', 'waiting_on_tool', 'waiting_on_human', 'paused', 'verifying', 'retrying'],
      eventData: { by: 'user' },
      now: NOW,
    });
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'stop' }]);
    expect(slices.republished).toEqual([{ taskId: 'tsk_2', attempt: 1, slice: 1, reason: 'created' }]);
  });

  it('stop cascades: the parent first, then each live child and its children; an ended one is left', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle({
      tsk_1: [child('c1', 'running'), child('c2', 'completed'), child('c3', 'queued')],
      c1: [child('g1', 'queued')],
    });
    // c3 ended between the listing and its stop: refused, and the cascade goes on.
    store
      .replyNext({})
      .replyNext({})
      .replyNext({})
      .replyNext(new IllegalTransitionError('c3', 'failed', 'cancelled'));
    await lifecycle.stop(task);
    expect(store.applied.map(({ target, command }) => [target.id, command.eventData])).toEqual([
      ['tsk_1', { by: 'user' }],
      ['c1', { by: 'parent', parentId: 'tsk_1' }],
      ['g1', { by: 'parent', parentId: 'c1' }],
      ['c3', { by: 'parent', parentId: 'tsk_1' }],
    ]);
    expect(signals.sent.map((signal) => signal.taskId)).toEqual(['tsk_1', 'c1', 'g1', 'c3']);
  });

  it('stop: a refusal of the task itself stops nothing else', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle({ tsk_1: [child('c1', 'running')] });
    store.replyNext(new IllegalTransitionError('tsk_1', 'completed', 'cancelled'));
    await expect(lifecycle.stop(task)).rejects.toBeInstanceOf(IllegalTransitionError);
    expect([store.applied.length, signals.sent]).toEqual([1, []]);
  });

  it('pause: paused by the user, the slice in flight aborted', async () => {
    const { lifecycle, store, signals, slices } = inMemoryLifecycle();
    await lifecycle.pause(task, { now: NOW });
    expect(store.only()).toEqual({
      operation: 'pause',
      to: 'paused',
      from: ['queued', 'running', 'waiting_on_tool', 'waiting_on_human', 'retrying'],
      statusReason: 'user',
      eventData: { by: 'user' },
      now: NOW,
    });
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'pause' }]);
    expect(slices.published).toEqual([]);
  });

  it('archive: a conversation’s new mission pauses the active one as archived', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    await lifecycle.archive(task);
    expect(store.only()).toMatchObject({
      operation: 'archive',
      to: 'paused',
      from: ['queued', 'running', 'waiting_on_tool', 'waiting_on_human', 'retrying'],
      statusReason: 'archived',
      eventData: { by: 'conversation', reason: 'archived' },
    });
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'pause' }]);
  });

  it('resume: a new attempt (with a higher budget if given), its first slice published', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    store.replyNext({ attempt: 3 });
    await lifecycle.resume(task, { budgetUsd: 12 });
    expect(store.only()).toMatchObject({
      operation: 'resume',
      to: 'queued',
      from: ['paused'],
      increments: { attempt: 1 },
      fields: { consecutiveErrors: 0, budgetUsd: 12 },
      eventData: { by: 'user' },
    });
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 3, slice: 4, reason: 'resumed' }]);
  });

  it('resume without a budget leaves the budget alone', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    await lifecycle.resume(task);
    expect(store.only().fields).toEqual({ consecutiveErrors: 0 });
  });

  it('answer: the person’s answer (and resolution) recorded, the same attempt continues', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    store.replyNext({ attempt: 2 });
    await lifecycle.answer(task, { text: 'obj_42', resolution: 'done', now: NOW });
    expect(store.only()).toEqual({
      operation: 'answer',
      to: 'queued',
      from: ['waiting_on_human'],
      fields: { humanInput: 'obj_42', humanInputAt: NOW, resolution: 'done' },
      eventData: { by: 'user', input: true, resolution: 'done' },
      now: NOW,
    });
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 2, slice: 4, reason: 'resumed' }]);
  });

  it('answer without a resolution says nothing of one', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    await lifecycle.answer(task, { text: 'the EU one' });
    expect(store.only()).toMatchObject({
      fields: { humanInput: 'the EU one' },
      eventData: { by: 'user', input: true },
    });
    expect(store.only().fields).not.toHaveProperty('resolution');
    expect(store.only().eventData).not.toHaveProperty('resolution');
  });
});
