import type { SteerInstruction, TaskRecord } from '@vigil/tasks';
import { newNoopTask } from '@vigil/testing';
import { SliceContextCache, type HeldSliceContext } from './slice-context';
import { nextContinued } from './slice-continuation';
import type { ClaimedSlice, SliceSetup } from './slice-setup';

describe('nextContinued: the slice after one continued in place', () => {
  const task = {
    id: 'tsk_next',
    ...newNoopTask({ input: { steps: 9 }, totalUnits: 9 }),
    attempt: 2,
    status: 'running',
    sliceCount: 3,
    contextVersion: 7,
    workerId: 'worker-before',
    provider: 'scripted',
    codeVersion: 'v1',
  } as unknown as TaskRecord;
  const instruction = (id: string, text: string): SteerInstruction => ({
    id,
    text,
    at: 1,
    afterStep: 3,
    status: 'running',
    attempt: 2,
  });
  const given = [instruction('s1', 'keep it short')];
  const previous: ClaimedSlice = {
    task,
    context: { doneSteps: new Set(['a']), outputs: new Map(), findings: [] },
    source: 'none',
    steering: given,
  };
  const held: HeldSliceContext = {
    attempt: 2,
    actions: 12,
    version: 12,
    writer: 'run-3',
    context: { doneSteps: new Set(['a', 'b']), outputs: new Map([['b', 1]]), findings: [] },
    loops: { attempt: 2, calls: new Map(), idleCalls: 0 } as unknown as HeldSliceContext['loops'],
  };

  it('starts from the held context and the instructions the last slice knew, one slice on, run by this Worker, and counts a held start', () => {
    const heldContexts = new SliceContextCache({ workerConcurrency: 4 });
    const steering = [...given, instruction('s2', 'and cite sources')];

    const started = { workerId: 'worker-here', provider: 'scripted' as const, codeVersion: 'v2' };

    const next = nextContinued(
      { heldContexts } as unknown as SliceSetup,
      previous,
      { held, steering, started },
      4,
    );

    expect(next.task).toEqual({ ...task, ...started, sliceCount: 4, contextVersion: 12 });
    expect(next.context).toBe(held.context);
    expect(next).toMatchObject({ source: 'held', held });
    expect(next.steering).toEqual(steering);
    expect(next.steering).not.toBe(steering);
    expect(previous.task).toMatchObject({ sliceCount: 3, contextVersion: 7, workerId: 'worker-before' });
    expect(heldContexts.starts).toEqual({ held: 1, stale: 0, none: 0 });
  });
});
