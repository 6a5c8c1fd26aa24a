import { Logger } from '@nestjs/common';
import { HeartbeatTimer } from './heartbeat-timer';

describe('HeartbeatTimer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('beats every interval while nothing else proves the worker alive, and skips a beat after a step', async () => {
    const beat = jest.fn(async () => undefined);
    const timer = new HeartbeatTimer(
      1_000,
      beat,
      () => undefined,
      () => false,
    );
    timer.start();
    await jest.advanceTimersByTimeAsync(3_000);
    expect(beat).toHaveBeenCalledTimes(3);

    // Steps every 400 ms (each a heartbeat of its own): no extra beats.
    for (let i = 0; i < 10; i++) {
      timer.touch();
      await jest.advanceTimersByTimeAsync(400);
    }
    expect(beat).toHaveBeenCalledTimes(3);

    // A long call without steps: beats resume one interval after the last step.
    timer.touch();
    await jest.advanceTimersByTimeAsync(999);
    expect(beat).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(beat).toHaveBeenCalledTimes(4);
    timer.stop();
  });

  it('gives up once on a lost task and keeps beating through other failures', async () => {
    const lost = new Error('fenced');
    const beat = jest
      .fn<Promise<void>, []>()
      .mockRejectedValueOnce(new Error('blip'))
      .mockRejectedValue(lost);
    const onLost = jest.fn();
    const timer = new HeartbeatTimer(100, beat, onLost, (error) => error === lost);
    timer.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(beat).toHaveBeenCalledTimes(2);
    expect(onLost).toHaveBeenCalledWith(lost);
  });

  it('logs a failure that repeats (a full Redis) once, and a different one again', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const full = new Error('store full');
    const beat = jest
      .fn<Promise<void>, []>()
      .mockRejectedValueOnce(full)
      .mockRejectedValueOnce(full)
      .mockRejectedValueOnce(full)
      .mockRejectedValueOnce(new Error('blip'))
      .mockResolvedValue(undefined);
    const timer = new HeartbeatTimer(
      100,
      beat,
      () => undefined,
      () => false,
    );
    timer.start();
    await jest.advanceTimersByTimeAsync(500);
    timer.stop();
    expect(beat).toHaveBeenCalledTimes(5);
    expect(warned.mock.calls.map(([text]) => String(text))).toEqual([
      'heartbeat failed, retrying at the next beat: Error: store full',
      'heartbeat failed, retrying at the next beat: Error: blip',
    ]);
    warned.mockRestore();
  });
});
