import { Redis } from 'ioredis';
import { parseCli } from './lib/cli';
import { diffCommandStats, parseCommandStats, scaleCounts, totalCalls } from './lib/commandstats';
import { parseVmRss } from './lib/processes';
import { classifyKey } from './lib/redis-memory';
import { RoundTripCounter } from './lib/round-trips';
import { median, percentile, round } from './lib/stats';
import { formatTable, formatValue } from './lib/table';

const INFO = [
  '# Commandstats',
  'cmdstat_evalsha:calls=10,usec=500,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
  'cmdstat_hset:calls=25,usec=50,usec_per_call=2.00,rejected_calls=0,failed_calls=0',
  'cmdstat_client|list:calls=3,usec=30,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

describe('bench helpers: INFO commandstats', () => {
  it('parses calls per command, subcommands included', () => {
    expect(parseCommandStats(INFO)).toEqual({ evalsha: 10, hset: 25, 'client|list': 3, info: 7 });
    expect(parseCommandStats('# Commandstats\r\n')).toEqual({});
  });

  it('diffs two snapshots, leaving out INFO itself and commands that did not move', () => {
    const before = parseCommandStats(INFO);
    const after = { ...before, evalsha: 12, hset: 41, info: 9, xadd: 2 };
    expect(diffCommandStats(before, after)).toEqual({ evalsha: 2, hset: 16, xadd: 2 });
    expect(diffCommandStats(before, after, [])).toEqual({ evalsha: 2, hset: 16, xadd: 2, info: 2 });
    expect(totalCalls({ evalsha: 2, hset: 16, xadd: 2 })).toBe(20);
  });

  it('scales counts per operation, sorted by name', () => {
    expect(scaleCounts({ zadd: 40, evalsha: 20, hexists: 10 }, 20)).toEqual({
      evalsha: 1,
      hexists: 0.5,
      zadd: 2,
    });
    expect(Object.keys(scaleCounts({ zadd: 1, evalsha: 1 }, 1))).toEqual(['evalsha', 'zadd']);
  });
});

describe('bench helpers: statistics', () => {
  const samples = [15, 20, 35, 40, 50];

  it('percentile is nearest-rank', () => {
    expect(percentile(samples, 50)).toBe(35);
    expect(percentile(samples, 30)).toBe(20);
    expect(percentile(samples, 100)).toBe(50);
    expect(percentile(samples, 99)).toBe(50);
    expect(percentile([3, 1, 2], 1)).toBe(1);
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(twenty, 50)).toBe(10);
    expect(percentile(twenty, 95)).toBe(19);
    expect(percentile(twenty, 99)).toBe(20);
  });

  it('percentile refuses no samples and out-of-range p', () => {
    expect(() => percentile([], 50)).toThrow();
    expect(() => percentile(samples, 0)).toThrow();
    expect(() => percentile(samples, 101)).toThrow();
  });

  it('median averages the middle pair and does not reorder its input', () => {
    const input = [4, 1, 3, 2];
    expect(median(input)).toBe(2.5);
    expect(input).toEqual([4, 1, 3, 2]);
    expect(median([7])).toBe(7);
  });

  it('round keeps significant digits', () => {
    expect(round(0.0123456)).toBe(0.0123);
    expect(round(12345.6)).toBe(12300);
    expect(round(0)).toBe(0);
  });
});

describe('bench helpers: output and parsing', () => {
  it('formats an aligned table', () => {
    expect(
      formatTable(
        ['a', 'value'],
        [
          ['long name', '1'],
          ['b', '22'],
        ],
      ).split('\n'),
    ).toEqual(['a          value', '---------  -----', 'long name  1', 'b          22']);
    expect(formatValue(null)).toBe('—');
    expect(formatValue(0.123456)).toBe('0.123');
    expect(formatValue(1234.5)).toBe('1235');
  });

  it('parses the CLI flags', () => {
    expect(parseCli([])).toEqual({ quick: false, only: [], out: undefined });
    expect(parseCli(['--quick', '--only', 'sweep,steps', '--only=recovery'])).toEqual({
      quick: true,
      only: ['sweep', 'steps', 'recovery'],
      out: undefined,
    });
    expect(() => parseCli(['--only'])).toThrow('--only needs a value');
    expect(() => parseCli(['--fast'])).toThrow('unknown argument');
  });

  it('reads VmRSS from /proc/<pid>/status', () => {
    expect(parseVmRss('Name:\tnode\nVmPeak:\t 999 kB\nVmRSS:\t  123456 kB\nThreads: 7\n')).toBe(123456);
    expect(() => parseVmRss('Name:\tnode\n')).toThrow();
  });
});

describe('bench helpers: round-trip counting', () => {
  it('counts a lone command as one round trip and a pipeline as one, however long', () => {
    const redis = new Redis({ lazyConnect: true });
    const counter = new RoundTripCounter(redis);
    counter.count(undefined);
    const pipeline = { isPipeline: true };
    counter.count(pipeline);
    counter.count(pipeline);
    counter.count(pipeline);
    counter.count({ isPipeline: true });
    expect({ commands: counter.commands, roundTrips: counter.roundTrips }).toEqual({
      commands: 5,
      roundTrips: 3,
    });
    counter.reset();
    expect(counter.roundTrips).toBe(0);
    redis.disconnect();
  });
});

describe('bench helpers: the memory bench sorts keys', () => {
  const prefix = 'bench-memory-1a2b';
  it("gives each task its own keys, and names the shard's queues, streams and indexes", () => {
    expect(classifyKey(prefix, `${prefix}:{s0}:task:tsk_1`)).toEqual({ kind: 'task', taskId: 'tsk_1' });
    expect(classifyKey(prefix, `${prefix}:{s3}:task:tsk_1:actions`)).toEqual({
      kind: 'task',
      taskId: 'tsk_1',
    });
    expect(classifyKey(prefix, `${prefix}:turns{s0}:tsk_1-a1-s2`)).toEqual({ kind: 'jobs' });
    expect(classifyKey(prefix, `${prefix}:wake{s0}:completed`)).toEqual({ kind: 'jobs' });
    expect(classifyKey(prefix, `${prefix}:webhooks{s1}:events`)).toEqual({ kind: 'queueEvents' });
    expect(classifyKey(prefix, `${prefix}:{s0}:events`)).toEqual({ kind: 'taskEvents' });
    expect(classifyKey(prefix, `${prefix}:{s0}:idx:tenant:acme:completed`)).toEqual({ kind: 'indexes' });
    expect(classifyKey(prefix, `${prefix}:workers`)).toEqual({ kind: 'other' });
    // Another bench's prefix that starts the same is not this one's.
    expect(classifyKey(prefix, `${prefix}x:{s0}:task:tsk_1`)).toEqual({ kind: 'other' });
  });
});
