import type { ChainableCommander, Redis } from 'ioredis';
import { clusterSlot } from './cluster-slot';
import { isCluster } from './redis-connection';

type Reply = [Error | null, unknown];
interface Queued {
  name: string;
  args: unknown[];
}

/**
 * A pipeline whose commands may name keys of different shards (a listing across every shard's
 * index). One Redis runs it as one pipeline. A Cluster client refuses a pipeline whose keys live
 * on different masters, so there the commands are grouped by slot, each group sent as its own
 * pipeline, all at once, and the replies put back in the order the commands were queued. Like any
 * pipeline, it is not atomic.
 */
export function crossSlotPipeline(redis: Redis): ChainableCommander {
  if (!isCluster(redis)) return redis.pipeline();
  const queued: Queued[] = [];
  const pipeline: ChainableCommander = new Proxy({} as ChainableCommander, {
    get(_target, property) {
      if (property === 'exec') return () => execBySlot(redis, queued);
      if (property === 'length') return queued.length;
      if (typeof property !== 'string' || property === 'then') return undefined;
      return (...args: unknown[]) => {
        queued.push({ name: property, args });
        return pipeline;
      };
    },
  });
  return pipeline;
}

async function execBySlot(redis: Redis, queued: Queued[]): Promise<Reply[]> {
  const bySlot = new Map<number, number[]>();
  queued.forEach((command, index) => {
    const key = command.args[0];
    const slot = typeof key === 'string' ? clusterSlot(key) : -1;
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), index]);
  });
  const replies: Reply[] = new Array<Reply>(queued.length);
  await Promise.all(
    [...bySlot.values()].map(async (indexes) => {
      const group = await redis
        .pipeline(indexes.map((index) => [queued[index].name, ...queued[index].args] as string[]))
        .exec();
      indexes.forEach((index, i) => (replies[index] = (group?.[i] ?? [null, null]) as Reply));
    }),
  );
  return replies;
}
