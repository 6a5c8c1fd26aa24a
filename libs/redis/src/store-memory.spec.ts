import { isOutOfMemory, nodeMemoryOf, oomRefusalsOf } from './store-memory';

const info = (fields: Record<string, string | number>) =>
  `# Memory\r\n${Object.entries(fields)
    .map(([name, value]) => `${name}:${value}`)
    .join('\r\n')}\r\n`;

describe('a full Redis, as the replies say it', () => {
  it.each([
    ['a command refused', "OOM command not allowed when used memory > 'maxmemory'.", true],
    [
      'a write inside a script refused (Redis 7)',
      "OOM command not allowed when used memory > 'maxmemory'. script: 68e3, on @user_script:1.",
      true,
    ],
    ['another refusal', 'ERR wrong number of arguments', false],
    ['a refusal of a read-only replica', "READONLY You can't write against a read only replica.", false],
  ])('%s', (_, message, expected) => {
    expect(isOutOfMemory(new Error(message))).toBe(expected);
  });

  it('finds the refusal behind a MULTI that Redis discarded (EXECABORT)', () => {
    const aborted = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new Error("OOM command not allowed when used memory > 'maxmemory'.")],
    });
    expect(isOutOfMemory(aborted)).toBe(true);
    expect(isOutOfMemory(Object.assign(new Error('EXECABORT'), { previousErrors: [] }))).toBe(false);
    expect(isOutOfMemory('OOM command not allowed')).toBe(false);
  });

  it.each<[string, Record<string, string | number>, boolean]>([
    [
      'over maxmemory under noeviction',
      { used_memory: 2_000, maxmemory: 1_000, maxmemory_policy: 'noeviction' },
      true,
    ],
    ['at maxmemory exactly', { used_memory: 1_000, maxmemory: 1_000, maxmemory_policy: 'noeviction' }, false],
    ['no maxmemory at all', { used_memory: 2_000, maxmemory: 0, maxmemory_policy: 'noeviction' }, false],
    ['an evicting policy', { used_memory: 2_000, maxmemory: 1_000, maxmemory_policy: 'allkeys-lru' }, false],
    [
      'over only by what is not counted for eviction (replication buffers)',
      {
        used_memory: 2_000,
        maxmemory: 1_000,
        mem_not_counted_for_evict: 1_500,
        maxmemory_policy: 'noeviction',
      },
      false,
    ],
  ])('INFO memory: %s', (_, fields, full) => {
    expect(nodeMemoryOf(info(fields))).toEqual({
      used: Number(fields.used_memory),
      max: Number(fields.maxmemory),
      full,
    });
  });

  it('counts the writes refused as full from INFO errorstats', () => {
    expect(oomRefusalsOf('# Errorstats\r\nerrorstat_EXECABORT:count=1\r\nerrorstat_OOM:count=37\r\n')).toBe(
      37,
    );
    expect(oomRefusalsOf('# Errorstats\r\nerrorstat_ERR:count=2\r\n')).toBe(0);
  });
});
