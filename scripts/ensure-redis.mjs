// Makes sure Redis answers at REDIS_URL; starts a local redis-server when one is installed and
// nothing answers. Used by `npm test`, `npm run bench`, `npm run demo` and `start:all`.
import { spawnSync } from 'node:child_process';
import net from 'node:net';

const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const host = url.hostname;
const port = Number(url.port || 6379);

function ping() {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG') || data.toString().includes('NOAUTH'));
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

if (await ping()) process.exit(0);
const local = ['127.0.0.1', 'localhost', '::1'].includes(host);
const which = spawnSync('sh', ['-c', 'command -v redis-server']);
if (!local || which.status !== 0) {
  console.error(`Redis does not answer at ${url.href}${local ? ' and redis-server is not installed' : ''}.`);
  console.error(
    'Start Redis (e.g. `apt-get install redis-server` or `docker run -p 6379:6379 redis:7`) and retry.',
  );
  process.exit(1);
}
console.error(`Redis does not answer at ${host}:${port}; starting a local redis-server...`);
const started = spawnSync(
  'redis-server',
  ['--daemonize', 'yes', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  {
    stdio: 'inherit',
  },
);
if (started.status !== 0) process.exit(1);
for (let i = 0; i < 50; i++) {
  if (await ping()) {
    console.error('redis-server is up.');
    process.exit(0);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.error('redis-server did not come up within 5 s');
process.exit(1);
