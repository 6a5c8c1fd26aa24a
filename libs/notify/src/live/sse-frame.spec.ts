import type { UserMessage } from '../messages/user-message';
import { taskEvent } from '@vigil/testing';
import { sseFrame } from './sse-frame';

const payloadOf = (frame: string) => JSON.parse(frame.split('\ndata: ')[1]) as Record<string, unknown>;
const update = { id: 'tsk_fixture-up-1', kind: 'progress', text: '3 of 40 steps' } as UserMessage;

describe('sseFrame', () => {
  it('shows a progress update’s message once, beside its data', () => {
    const payload = payloadOf(sseFrame(taskEvent('task.progress', { update: 1, message: update }), null));
    expect(payload).toMatchObject({ type: 'task.progress', data: { update: 1 }, message: update });
    expect(payload.data).not.toHaveProperty('message');
  });

  it('keeps every other event’s data whole, with the message the notifier produced', () => {
    const frame = sseFrame(taskEvent('task.paused', { by: 'user' }), update);
    expect(frame.startsWith('id: 1700000000500-0\nevent: task.paused\n')).toBe(true);
    expect(payloadOf(frame)).toMatchObject({ data: { by: 'user' }, message: update });
    expect(payloadOf(sseFrame(taskEvent('task.progress', { currentStep: 'x' }), null))).not.toHaveProperty(
      'message',
    );
  });
});
