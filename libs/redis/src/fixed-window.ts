import type { Redis } from 'ioredis';

/** One counted hit of a fixed window: the hits in the window so far and the window's time left. */
export interface WindowCount {
  hits: number;
  remainingMs: number;
}

/**
 * Counts one hit in the fixed window `key`: opened and counted in one MULTI (SET NX PX, INCR,
 * PTTL) — no Lua, one key per command, so it runs on a Redis Cluster too. The API's rate limit
 * and a schedule's fires count in the same windows (docs/schedules.md, "Limits").
 */
export async function countInFixedWindow(redis: Redis, key: string, windowMs: number): Promise<WindowCount> {
  const replies = await redis.multi().set(key, 0, 'PX', windowMs, 'NX').incr(key).pttl(key).exec();
  if (!replies) throw new Error('rate-limit transaction was aborted');
  for (const [error] of replies) if (error) throw error;
  let remainingMs = Number(replies[2][1]);
  if (remainingMs < 0) {
    // The window expired between SET and INCR: the INCR opened a new one without an expiry.
    await redis.pexpire(key, windowMs);
    remainingMs = windowMs;
  }
  return { hits: Number(replies[1][1]), remainingMs };
}
