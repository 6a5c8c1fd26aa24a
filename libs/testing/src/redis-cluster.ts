import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port';

const run = promisify(execFile);
const HOST = '127.0.0.1';

export interface LocalClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** cluster-node-timeout: a master silent this long is failed over (Redis' default is 15 s). */
  nodeTimeoutMs?: number;
}

export interface ClusterNode {
  port: number;
  busPort: number;
  dir: string;
  process?: ChildProcess;
}

interface NodeLine {
  id: string;
  port: number;
  flags: string[];
  masterId: string;
  slots: string[];
}

/** Every redis-server started by this process, killed at exit even when a test failed. */
const running = new Set<ClusterNode>();
process.once('exit', () => {
  for (const node of running) {
    node.process?.kill('SIGKILL');
    rmSync(node.dir, { recursive: true, force: true });
  }
});

/**
 * A real Redis Cluster on this machine for tests, chaos and bench: `masters` masters with
 * `replicasPerMaster` replicas each (default 3 × 1), from the `redis-server` binary, each node on
 * free ports in its own temporary directory, no persistence, a one-second node timeout so a killed
 * master's replica takes over within about two seconds.
 */
export class LocalRedisCluster {
  private constructor(readonly nodes: ClusterNode[]) {}

  static async start(options: LocalClusterOptions = {}): Promise<LocalRedisCluster> {
    const masters = options.masters ?? 3;
    const replicas = options.replicasPerMaster ?? 1;
    const count = masters * (1 + replicas);
    const ports = await distinctFreePorts(2 * count);
    const nodes: ClusterNode[] = Array.from({ length: count }, (_, i) => ({
      port: ports[2 * i],
      busPort: ports[2 * i + 1],
      dir: mkdtempSync(join(tmpdir(), 'vigil-cluster-')),
    }));
    const cluster = new LocalRedisCluster(nodes);
    try {
      for (const node of nodes) cluster.launch(node, options.nodeTimeoutMs ?? 1_000);
      await Promise.all(nodes.map((node) => waitForPing(node.port)));
      await run('redis-cli', [
        '--cluster',
        'create',
        ...nodes.map((node) => `${HOST}:${node.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ]);
      await cluster.waitUntilHealthy();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The value of REDIS_CLUSTER_NODES for this cluster (every node is a valid seed). */
  get nodesEnv(): string {
    return this.nodes.map((node) => `${HOST}:${node.port}`).join(',');
  }

  env(): Record<string, string> {
    return { REDIS_CLUSTER_NODES: this.nodesEnv };
  }

  /** Ports of the current masters, lowest slot first. */
  async masterPorts(): Promise<number[]> {
    const lines = await this.topology();
    return lines
      .filter(
        (line) => line.flags.includes('master') && !line.flags.includes('fail') && line.slots.length > 0,
      )
      .sort((a, b) => Number(a.slots[0].split('-')[0]) - Number(b.slots[0].split('-')[0]))
      .map((line) => line.port);
  }

  /**
   * SIGKILLs a master (the first by default) and waits until one of its replicas is promoted and
   * every surviving node reports `cluster_state:ok`. Returns the killed and the promoted port.
   */
  async killMaster(port?: number): Promise<{ killed: number; promoted: number; failoverMs: number }> {
    const before = await this.topology();
    const victim = before.find((line) => line.port === (port ?? before.find(isServingMaster)!.port));
    if (!victim || !isServingMaster(victim)) throw new Error(`no serving master on port ${port}`);
    const replicaPorts = before.filter((line) => line.masterId === victim.id).map((line) => line.port);
    const node = this.nodes.find((candidate) => candidate.port === victim.port)!;
    const killedAt = Date.now();
    node.process?.kill('SIGKILL');
    await new Promise((resolve) => node.process?.once('exit', resolve));
    node.process = undefined;
    running.delete(node);
    const promoted = await waitFor(
      async () => {
        const after = await this.topology();
        return after.find((line) => replicaPorts.includes(line.port) && isServingMaster(line))?.port;
      },
      30_000,
      `a replica of ${victim.port} promoted`,
    );
    await this.waitUntilHealthy();
    return { killed: victim.port, promoted, failoverMs: Date.now() - killedAt };
  }

  /** Starts a killed node again from its directory: it rejoins as a replica of its old slots' master. */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((candidate) => candidate.port === port);
    if (!node || node.process) throw new Error(`node ${port} is not a stopped node of this cluster`);
    this.launch(node, 1_000);
    await waitForPing(node.port);
    await this.waitUntilHealthy();
  }

  /** Waits until every running node reports cluster_state:ok and every replica's link is up. */
  async waitUntilHealthy(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        for (const node of this.liveNodes()) {
          const info = await this.call(node.port, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return undefined;
          const replication = await this.call(node.port, 'INFO', 'replication');
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
            return undefined;
        }
        return true;
      },
      timeoutMs,
      'cluster_state:ok on every node',
    );
  }

  /** SIGKILLs every node and removes their directories. */
  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (node.process && node.process.exitCode === null) {
          const exited = new Promise((resolve) => node.process!.once('exit', resolve));
          node.process.kill('SIGKILL');
          await exited;
        }
        node.process = undefined;
        running.delete(node);
        rmSync(node.dir, { recursive: true, force: true });
      }),
    );
  }

  private liveNodes(): ClusterNode[] {
    return this.nodes.filter((node) => node.process);
  }

  private launch(node: ClusterNode, nodeTimeoutMs: number): void {
    // prettier-ignore
    node.process = spawn('redis-server', [
      '--port', String(node.port), '--bind', HOST, '--protected-mode', 'no',
      '--cluster-enabled', 'yes', '--cluster-config-file', join(node.dir, 'nodes.conf'),
      '--cluster-port', String(node.busPort), '--cluster-node-timeout', String(nodeTimeoutMs),
      // A replica may take over however long it was cut off: tests kill masters on purpose.
      '--cluster-replica-validity-factor', '0',
      '--dir', node.dir, '--appendonly', 'no', '--save', '',
      '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--loglevel', 'warning',
    ], { stdio: 'ignore' });
    running.add(node);
  }

  private async topology(): Promise<NodeLine[]> {
    for (const node of this.liveNodes()) {
      try {
        return parseNodes(await this.call(node.port, 'CLUSTER', 'NODES'));
      } catch {
        // This node is going away: ask the next one.
      }
    }
    throw new Error('no node of the cluster answers');
  }

  private call(port: number, ...command: string[]): Promise<string> {
    return withNode(port, async (redis) => String(await redis.call(command[0], ...command.slice(1))));
  }
}

/** One command exchange with one node, on a connection of its own that never retries or reconnects. */
async function withNode<T>(port: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** Free ports, no two alike: the OS may hand out a port again once the probe closed it. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function isServingMaster(line: NodeLine): boolean {
  return (
    line.flags.includes('master') &&
    !line.flags.some((flag) => flag.startsWith('fail')) &&
    line.slots.length > 0
  );
}

function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((row) => {
      const [id, address, flags, masterId, , , , , ...slots] = row.trim().split(' ');
      const port = Number(/:(\d+)@/.exec(address)?.[1]);
      return { id, port, flags: flags.split(','), masterId, slots: slots.filter((slot) => /^\d/.test(slot)) };
    });
}

async function waitForPing(port: number): Promise<void> {
  await waitFor(
    () =>
      withNode(port, async (redis) => ((await redis.ping()) === 'PONG' ? true : undefined)).catch(
        () => undefined,
      ),
    10_000,
    `redis-server on ${port}`,
  );
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} not reached in ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}
