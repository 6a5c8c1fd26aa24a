// The chaos run's Redis Cluster (`npm run chaos -- --cluster`): the test helper LocalRedisCluster
// (3 masters, 3 replicas, libs/testing/src/redis-cluster.ts), driven from its own process through
// libs/testing/src/redis-cluster-cli.ts, which speaks lines on stdin/stdout.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export class ChaosCluster {
  constructor(root) {
    this.root = root;
    this.waiting = [];
  }

  async start() {
    this.process = spawn(
      process.execPath,
      ['--import', 'tsx', join(this.root, 'libs/testing/src/redis-cluster-cli.ts')],
      { cwd: this.root, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.exited = new Promise((resolve) => this.process.on('exit', resolve));
    createInterface({ input: this.process.stdout }).on('line', (line) => this.waiting.shift()?.(line));
    const ready = await this.next();
    if (!ready.startsWith('ready ')) throw new Error(`chaos cluster: ${ready}`);
    this.nodesEnv = ready.slice('ready '.length);
    this.nodes = this.nodesEnv
      .split(',')
      .map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) }));
  }

  env() {
    return { REDIS_CLUSTER_NODES: this.nodesEnv };
  }

  /** SIGKILLs a master and resolves once its replica serves its slots: {killed, promoted, failoverMs}. */
  async killMaster() {
    return JSON.parse(this.expect(await this.send('kill-master'), 'killed'));
  }

  /** Starts a killed node again; it rejoins as a replica. */
  async restart(port) {
    this.expect(await this.send(`restart ${port}`), 'restarted');
  }

  async stop() {
    this.process.stdin.end('stop\n');
    await this.exited;
  }

  send(line) {
    const reply = this.next();
    this.process.stdin.write(`${line}\n`);
    return reply;
  }

  next() {
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      this.exited.then(() => reject(new Error('chaos cluster process exited')));
    });
  }

  expect(line, word) {
    if (!line.startsWith(`${word} `)) throw new Error(`chaos cluster: ${line}`);
    return line.slice(word.length + 1);
  }
}
