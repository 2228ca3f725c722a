import { createServer, type RequestListener, type Server } from "node:http";

export type ServerLimits = { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number };

/**
 * A node:http server that doesn't let slow or many clients hold it: headers must arrive within
 * headersTimeoutMs and the whole request within requestTimeoutMs (else 408 and the socket closes),
 * and sockets past maxConnections are dropped at once. Node's own defaults (300 s per request,
 * checked every 30 s, no cap) let a client sending a byte every few seconds hold a socket for minutes.
 */
export function createLimitedServer(limits: ServerLimits, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often expired requests are looked for: the bounds above hold to within this.
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}
