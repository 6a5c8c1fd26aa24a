import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * A node:http server whose idle keep-alive sockets outlive fetch's own 4 s idle timeout. With
 * node's default 5 s, a loaded machine now and then sends a request on a socket the server is
 * closing, and the fake's client sees ECONNRESET that no real service would cause.
 */
export function httpServer(listener: RequestListener): Server {
  const server = createServer(listener);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
