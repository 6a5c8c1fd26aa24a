import { ScriptRunner } from '@vigil/redis';
import { RedisTestContext } from '@vigil/testing';

/** Script calls as every lib makes them (ScriptRunner.run), against the real server. */
describe('a script call', () => {
  const ctx = new RedisTestContext('script-runner');
  afterAll(() => ctx.close());

  // A script of its own per run: its first call finds the server without it (NOSCRIPT, then EVAL).
  const marker = `-- ${ctx.prefix}`;
  const runner = new ScriptRunner(ctx.redis, [
    {
      name: 'pair',
      numberOfKeys: 2,
      lua: `${marker}\nredis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[2]) return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1}`,
    },
    { name: 'count', numberOfKeys: 'variable', lua: `${marker}\nreturn #KEYS .. ':' .. #ARGV` },
  ]);
  const key = (name: string) => `${ctx.prefix}:{runner}:${name}`;

  it('sends its keys and its arguments, numbers as their decimal text, and answers what the script returns', async () => {
    const answer = await runner.run('pair', [key('a'), key('b')], ['one', 41]);

    expect(answer).toEqual([key('a'), 'one', 42]);
    expect(await ctx.redis.mget(key('a'), key('b'))).toEqual(['one', '41']);
    // Loaded by the first call: the next goes as EVALSHA and answers the same.
    expect(await runner.run('pair', [key('a'), key('b')], ['two', 1.5])).toEqual([key('a'), 'two', 2]);
  });

  it('is refused before it is sent when its keys are not as many as the script declares', async () => {
    await expect(runner.run('pair', [key('a')], ['x', 'y', 'z'])).rejects.toThrow(
      'Lua script pair takes 2 keys, called with 1',
    );
    expect(await ctx.redis.get(key('a'))).not.toBe('x');
  });

  it('over a variable number of keys, carries as many as it is given', async () => {
    expect(await runner.run('count', [key('a'), key('b'), key('c')], [1])).toBe('3:1');
    expect(await runner.runMany('count', [key('a')], ['1', '2'])).toBe('1:2');
    await expect(runner.runMany('pair', [key('a'), key('b')], ['1', '2'])).rejects.toThrow(
      'not loaded as a variable-key script',
    );
  });
});
