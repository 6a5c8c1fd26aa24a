import { Command } from 'ioredis';
import { encodeCommand } from './resp-encoding';

/** What ioredis itself would write for the same command, as bytes. */
function ioredisBytes(name: string, args: string[]): Buffer {
  const writable = new Command(name, args).toWritable({});
  return Buffer.isBuffer(writable) ? writable : Buffer.from(writable, 'utf8');
}

describe('encodeCommand', () => {
  it('writes the bytes ioredis writes, whatever the arguments hold', () => {
    const cases: string[][] = [
      [],
      [''],
      ['sha1', '0'],
      ['', 'a', '', ''],
      ['é', 'naïve café', '日本語のテキスト', '🙂 emoji 🙂', 'mixed ascii and ü'],
      ['\r\n inside \r\n', '$5\r\n', '*3'],
      [
        'lone \ud800 surrogate',
        'x'.repeat(9),
        'y'.repeat(10),
        'z'.repeat(99),
        'w'.repeat(100),
        'v'.repeat(123_456),
      ],
      ['{"step":1,"tool":"noop_step","args":{"n":1},"result":{"ok":true}}', '1796327083723'],
    ];
    for (const args of cases)
      expect(encodeCommand('evalsha', args).equals(ioredisBytes('evalsha', args))).toBe(true);
  });

  it('encodes calls longer than the lengths it kept from the last, and shorter ones after them', () => {
    const long = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? '' : `argument-${i}-ü`));
    const short = ['a', 'bb'];

    expect(encodeCommand('eval', long).equals(ioredisBytes('eval', long))).toBe(true);
    expect(encodeCommand('eval', short).equals(ioredisBytes('eval', short))).toBe(true);
    expect(encodeCommand('eval', short).toString()).toBe('*3\r\n$4\r\neval\r\n$1\r\na\r\n$2\r\nbb\r\n');
  });
});
