import type { Socket } from 'node:net';
import type { Cluster, Redis } from 'ioredis';
import { asCluster } from './redis-connection';

const COALESCED = Symbol('vigil.coalescedWrites');

type Stream = Socket & { [COALESCED]?: true };

/**
 * Every write the socket takes within one tick of the event loop leaves in one system call. A
 * Worker's slices run side by side: a burst of replies resolves dozens of steps in one tick, and
 * each then writes its next command. Written one by one, every command costs a send here and a
 * read on the server; corked until the tick's queued callbacks have run, the burst goes as one
 * writev and the server reads it at once (docs/ARCHITECTURE.md, "Throughput: what one step
 * costs"). Nothing waits longer than the current tick, and the order of commands on the
 * connection is unchanged.
 */
function coalesce(stream: Stream): void {
  if (stream[COALESCED]) return;
  stream[COALESCED] = true;
  const write = stream.write;
  let corked = false;
  const flush = () => {
    corked = false;
    stream.uncork();
  };
  stream.write = function (this: Socket, ...args: Parameters<Socket['write']>): boolean {
    if (!corked) {
      corked = true;
      stream.cork();
      // process.nextTick runs after the promise callbacks of the tick that queued it.
      process.nextTick(flush);
    }
    return write.apply(this, args);
  } as Socket['write'];
}

function coalesceNode(redis: Redis): void {
  const install = () => {
    const stream = (redis as unknown as { stream?: Stream }).stream;
    if (stream) coalesce(stream);
  };
  // Each (re)connection is a new socket.
  redis.on('connect', install);
  install();
}

/**
 * Coalesces the writes of a command connection (see `coalesce`); on a Redis Cluster, of every node
 * connection the client has or makes. Not for a connection that blocks (BZPOPMIN, XREAD BLOCK):
 * it has nothing to batch.
 */
export function coalesceWrites<T extends Redis>(redis: T): T {
  const cluster: Cluster | undefined = asCluster(redis);
  if (!cluster) {
    coalesceNode(redis);
    return redis;
  }
  cluster.on('+node', (node: Redis) => coalesceNode(node));
  for (const node of cluster.nodes()) coalesceNode(node);
  return redis;
}
