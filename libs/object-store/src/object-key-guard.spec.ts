import { checkedListPrefix, checkedObjectKey } from './object-key-guard';
import { InvalidObjectKeyError, ObjectKeys } from './object-keys';

describe('the key guard every driver applies', () => {
  it('passes every key ObjectKeys builds', () => {
    const sha = 'a'.repeat(64);
    for (const key of [ObjectKeys.archive('t-1', 'tsk_AbC'), ObjectKeys.artifact('t_1', 'tsk_1', sha)])
      expect(checkedObjectKey(key)).toBe(key);
  });

  it.each([
    '../x',
    'a/../b',
    '..',
    '/abs',
    'a//b',
    'a/',
    './a',
    '.hidden',
    'a/.tmp-1',
    'a\\b',
    '%2e%2e',
    'a b',
    'é',
    'a\u0000',
    '',
    'x'.repeat(1025),
    `a/${'b'.repeat(256)}`,
  ])('refuses the key %j', (key) => {
    expect(() => checkedObjectKey(key)).toThrow(InvalidObjectKeyError);
  });

  it('takes a listing prefix that ends inside a segment or after a slash, and nothing that climbs', () => {
    for (const prefix of ['', 'archive/', 'archive/t1/', 'archive/t1/tsk_'])
      expect(checkedListPrefix(prefix)).toBe(prefix);
    for (const prefix of ['../', '/', 'a//', '../a', '.x/', 'a/..', 'a/%2e'])
      expect(() => checkedListPrefix(prefix)).toThrow(InvalidObjectKeyError);
  });
});
