import { BoundedMemo } from './bounded-memo';

describe('BoundedMemo', () => {
  it('keeps what was stored until the limit, then starts over', () => {
    const memo = new BoundedMemo<number>(2);
    expect(memo.set('a', 1)).toBe(1);
    memo.set('b', 2);
    expect([memo.get('a'), memo.get('b')]).toEqual([1, 2]);
    // A third key passes the limit: the older entries go, the new one stays.
    memo.set('c', 3);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, undefined, 3]);
  });
});
