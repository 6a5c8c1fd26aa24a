import { IllegalTransitionError, TASK_STATUSES } from '@vigil/tasks';
import {
  applyControl,
  CONTROL_FROM,
  ControlNotAllowedError,
  controlRefusal,
  type Control,
} from './control-refusal';

describe('control refusals in words', () => {
  it.each([
    ['resume', 'completed', 'the task is completed; only paused tasks can be resumed'],
    ['resume', 'running', 'the task is running; only paused tasks can be resumed'],
    [
      'pause',
      'verifying',
      'the task is verifying its result; only queued, running, waiting or retrying tasks can be paused',
    ],
    ['pause', 'paused', 'the task is already paused'],
    ['stop', 'cancelled', 'the task is cancelled; only a task that has not finished can be stopped'],
    ['input', 'running', "the task is running; only a task waiting for a person's answer takes input"],
  ] as const)('%s on a %s task: "%s"', (control, status, words) => {
    expect(controlRefusal(control, status)).toBe(words);
  });

  it('words every refusal of every control, naming the current status', () => {
    for (const control of Object.keys(CONTROL_FROM) as Control[]) {
      for (const status of TASK_STATUSES.filter((s) => !CONTROL_FROM[control].includes(s))) {
        const words = controlRefusal(control, status);
        expect(words).toMatch(/^the task is /);
        expect(words).not.toMatch(/_/);
      }
    }
  });

  it('turns a refused transition into a 409-mapped error that keeps the current status', async () => {
    const refused = applyControl('resume', 'tsk_1', () =>
      Promise.reject(new IllegalTransitionError('tsk_1', 'completed', 'queued')),
    );
    await expect(refused).rejects.toBeInstanceOf(ControlNotAllowedError);
    await expect(refused).rejects.toBeInstanceOf(IllegalTransitionError);
    await expect(refused).rejects.toMatchObject({
      currentStatus: 'completed',
      message: 'the task is completed; only paused tasks can be resumed',
    });
    await expect(applyControl('stop', 'tsk_1', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
