import { mergeRead } from './merged-read';
import { compareStreamIds, isResumeId, liveFrameId, parseResumeId } from './resume-point';

describe('resume points (docs/api.md, "Live model output")', () => {
  it('a durable id resumes its events, and live output from the start of its millisecond', () => {
    expect(parseResumeId('1700000000500-3')).toEqual({
      events: '1700000000500-3',
      live: '1700000000499-18446744073709551615',
    });
    expect(parseResumeId('0-1')).toEqual({ events: '0-1', live: '0-0' });
  });

  it('a live id carries both cursors, and is what a live frame is sent with', () => {
    const point = { events: '1700000000500-0', live: '1700000000612-4' };
    expect(liveFrameId(point)).toBe('1700000000500-0~1700000000612-4');
    expect(parseResumeId(liveFrameId(point))).toEqual(point);
  });

  it.each(['nope', '1-x', '1-0~', '~1-0', '1-0~2-0~3-0', '1-0 2-0', '123456789012345678901-0'])(
    'refuses %p',
    (value) => expect(isResumeId(value)).toBe(false),
  );

  it('orders stream ids as Redis does, 64-bit sequences included', () => {
    expect(compareStreamIds('9-0', '10-0')).toBe(-1);
    expect(compareStreamIds('10-18446744073709551615', '10-18446744073709551614')).toBe(1);
    expect(compareStreamIds('10-2', '10-2')).toBe(0);
  });
});

describe('mergeRead', () => {
  const keys = { events: 'ev', live: 'lv' };
  const entries = (...ids: string[]): [string, string[]][] => ids.map((id) => [id, []]);

  it('interleaves both streams by id, the durable event first on a tie', () => {
    const merged = mergeRead(
      [
        ['ev', entries('5-0', '9-1')],
        ['lv', entries('5-0', '7-0', '10-0')],
      ],
      keys,
      200,
    );
    expect(merged.map((e) => `${e.source}:${e.id}`)).toEqual([
      'events:5-0',
      'live:5-0',
      'live:7-0',
      'events:9-1',
      'live:10-0',
    ]);
  });

  it('holds back what is newer than the last entry of a full batch: older entries may still be unread', () => {
    const merged = mergeRead(
      [
        ['ev', entries('1-0', '4-0')],
        ['lv', entries('2-0', '3-0', '6-0')],
      ],
      keys,
      2,
    );
    expect(merged.map((e) => `${e.source}:${e.id}`)).toEqual([
      'events:1-0',
      'live:2-0',
      'live:3-0',
      'events:4-0',
    ]);
    expect(mergeRead(null, keys, 2)).toEqual([]);
  });
});
