/**
 * The baseline of the throughput bench, run as its own process: a bare BullMQ Worker processing
 * no-op jobs with the same concurrency and worker options as Vigil's slice processor. Driven over
 * stdin: `go <n>` (start/resume; prints `done` after n completions), `pause`, `stop`.
 */
import { createInterface } from 'node:readline';
import { Worker } from 'bullmq';
import { bullConnection } from '@vigil/queue';

const send = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const worker = new Worker(process.env.RAW_QUEUE!, async () => undefined, {
    connection: bullConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
    prefix: process.env.KEY_PREFIX!,
    concurrency: Number(process.env.CONCURRENCY),
    autorun: false,
    maxStalledCount: 0,
    lockDuration: 60_000,
  });
  let target = 0;
  let completed = 0;
  let running = false;
  worker.on('completed', () => {
    if (++completed === target) send('done');
  });
  worker.on('error', (error) => process.stderr.write(`raw worker: ${String(error)}\n`));
  await worker.waitUntilReady();
  send('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, arg] = line.trim().split(/\s+/);
    if (command === 'go') {
      completed = 0;
      target = Number(arg);
      if (!running) {
        running = true;
        void worker.run();
      } else void worker.resume();
    } else if (command === 'pause') {
      await worker.pause();
      send('paused');
    } else if (command === 'stop') break;
  }
  await worker.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`raw worker failed: ${String(error)}\n`);
  process.exit(1);
});
