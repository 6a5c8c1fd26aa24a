// The chaos run's "Redis full" fault (docs/operations.md, "A full Redis"): every master's maxmemory
// is lowered to just above what it uses (policy noeviction), aimed again every quarter second as
// what it uses moves (finished jobs are removed, streams trimmed), so the run's own writes fill it; once
// a master refuses writes the cap is pinned below what is used, held long enough for every
// heartbeat to go stale, then put back. No other blow lands from a quiet period before it until
// the Watchers have continued what it silenced, so any recovery or retry counted in that span is
// the full Redis's doing (the invariant `retriesOrRecoveriesForAFullRedis`).
const HEADROOM_BYTES = 16 * 1024;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class RedisFullFault {
  /** `masters()`: a connection to each master; `memoryOf(info)`: `{used, max, full}` of INFO memory. */
  constructor({ masters, memoryOf, staleAfterMs, log }) {
    this.masters = masters;
    this.memoryOf = memoryOf;
    this.staleAfterMs = staleAfterMs;
    this.log = log;
  }

  async memory(node) {
    return this.memoryOf(await node.call('INFO', 'memory'));
  }

  /** Quiet, fill, hold, free, settle; resolves with the span in which no recovery may happen. */
  async run() {
    await sleep(2 * this.staleAfterMs + 2000);
    const nodes = this.masters();
    const original = await Promise.all(nodes.map((node) => node.config('GET', 'maxmemory')));
    // From the first capped write on: a master near its cap refuses some writes before it is full.
    const from = Date.now();
    try {
      for (const node of nodes) await node.config('SET', 'maxmemory-policy', 'noeviction');
      await this.fill(nodes);
      // A cap just above what is used opens again for moments as client buffers are freed: pinned.
      for (const node of nodes) await node.config('SET', 'maxmemory', '1');
      this.log(`Redis full (maxmemory reached under noeviction) on ${nodes.length} master(s); held`);
      await sleep(2 * this.staleAfterMs + 2000);
    } finally {
      for (const [i, node] of nodes.entries()) await node.config('SET', 'maxmemory', original[i][1]);
    }
    this.log(`maxmemory raised again after ${((Date.now() - from) / 1000).toFixed(1)} s`);
    // The silenced tasks go stale STALE_AFTER_MS after their last beat: continued by then.
    await sleep(this.staleAfterMs + 3000);
    return { from, to: Date.now() };
  }

  /** Resolves once a master refuses writes, the cap aimed just above what each uses meanwhile. */
  async fill(nodes) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const memories = await Promise.all(nodes.map((node) => this.memory(node)));
      if (memories.some((memory) => memory.full)) return;
      if (Date.now() > deadline) throw new Error('Redis did not fill within 60 s');
      for (const [i, node] of nodes.entries())
        await node.config('SET', 'maxmemory', String(memories[i].used + HEADROOM_BYTES));
      await sleep(250);
    }
  }
}
