import { createInterface } from 'node:readline';
import { LocalRedisCluster } from './redis-cluster';

/**
 * LocalRedisCluster for a plain-JavaScript caller (scripts/chaos-cluster.mjs), as a child process
 * speaking lines: it prints `ready <nodes env>`, then answers `kill-master` with
 * `killed <json {killed, promoted, failoverMs}>`, `restart <port>` with `restarted <port>`, and
 * `stop` (or the end of its stdin) by stopping every node and exiting. A failure is `error <text>`.
 * Run with `node --import tsx libs/testing/src/redis-cluster-cli.ts`.
 */
async function main(): Promise<void> {
  const cluster = await LocalRedisCluster.start();
  const reply = (line: string) => process.stdout.write(`${line}\n`);
  reply(`ready ${cluster.nodesEnv}`);
  const stop = async () => {
    await cluster.stop();
    process.exit(0);
  };
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => void stop());
  for await (const line of lines) {
    const [command, argument] = line.trim().split(' ');
    try {
      if (command === 'kill-master') reply(`killed ${JSON.stringify(await cluster.killMaster())}`);
      else if (command === 'restart') {
        await cluster.restart(Number(argument));
        reply(`restarted ${argument}`);
      } else if (command === 'stop') await stop();
      else reply(`error unknown command ${command}`);
    } catch (error) {
      reply(`error ${String(error).replace(/\n/g, ' ')}`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`redis-cluster-cli: ${String(error)}\n`);
  process.exit(1);
});
