import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP port that was free a moment ago, chosen by the OS, for a test that must pass a port
 * number itself. Fixed ports collide now and then with the ephemeral ports of outgoing connections.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
