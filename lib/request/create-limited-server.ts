import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { Socket } from "node:net";
import { addressGroup } from "./client-address";
import { InFlight } from "./in-flight";

export type ServerLimits = { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number; maxConnectionsPerAddress: number };

export type ServerPolicy = {
  /** Peers the per-address cap doesn't apply to: trusted reverse proxies, which carry every client. */
  uncapped?: (address: string) => boolean;
  /** Requests the reserved share of sockets may carry (webhooks); unset, every request may. */
  reservedFor?: (request: IncomingMessage) => boolean;
};

/** The sockets kept for `reservedFor`'s requests: an eighth of HTTP_MAX_CONNECTIONS, at least one. */
export function reservedConnections(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 8));
}

// A socket taken from the reserve must bring its request at once; it's there for a webhook, not to wait.
const RESERVED_SOCKET_GRACE_MS = 1000;

const BUSY = JSON.stringify({ error: "server busy, retry later", code: "SERVER_BUSY" });

/**
 * A node:http server that doesn't let slow or many clients hold it: headers must arrive within
 * headersTimeoutMs (a socket that sends nothing gets 408 and is closed then too) and the whole request
 * within requestTimeoutMs, sockets past maxConnections are dropped at once, and so are those of one
 * address (an IPv6 /64) past maxConnectionsPerAddress. With `reservedFor`, the last eighth of the
 * sockets is kept for the requests it accepts: a socket opened while the rest are taken must bring
 * such a request within a second, or is answered 503 and closed. Node's own defaults (300 s per
 * request, checked every 30 s, no cap) let one client hold every socket for minutes.
 */
export function createLimitedServer(limits: ServerLimits, listener: RequestListener, policy: ServerPolicy = {}): Server {
  const reserved = policy.reservedFor ? reservedConnections(limits.maxConnections) : 0;
  const fromReserve = new WeakSet<Socket>();
  // Reserved sockets that have brought no request yet, and when they will be closed.
  const graceTimers = new Map<Socket, NodeJS.Timeout>();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often expired requests are looked for: the bounds above hold to within this.
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    (request, response) => {
      const socket = request.socket;
      clearTimeout(graceTimers.get(socket));
      graceTimers.delete(socket);
      if (fromReserve.has(socket) && !policy.reservedFor!(request)) {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" });
        return void response.end(BUSY);
      }
      listener(request, response);
    },
  );

  // Counted here rather than by Node's server.maxConnections, which counts refused sockets too until
  // they have closed: a client reconnecting as fast as it is refused would hold the cap that way.
  const perAddress = new InFlight(limits.maxConnectionsPerAddress);
  let open = 0;
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    if (open >= limits.maxConnections) return void socket.destroy();
    const release = policy.uncapped?.(address) ? () => undefined : perAddress.tryAcquire(addressGroup(address));
    if (!release) return void socket.destroy();
    open++;
    if (open > limits.maxConnections - reserved) {
      fromReserve.add(socket);
      graceTimers.set(
        socket,
        setTimeout(() => socket.destroy(), RESERVED_SOCKET_GRACE_MS),
      );
    }
    socket.once("close", () => {
      clearTimeout(graceTimers.get(socket));
      graceTimers.delete(socket);
      open--;
      release();
    });
  });
  return server;
}
