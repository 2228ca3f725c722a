import { request } from "node:http";
import { readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";

// Raw TCP clients for what fetch can't do: dribble a request byte by byte, hold sockets open, keep
// sending after the server has answered.

/**
 * Opens a socket to `baseUrl`'s host and port, from `localAddress` if given (another loopback
 * address, 127.0.0.2, is another client to the server); resolves once connected.
 */
export function openSocket(baseUrl: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, localAddress }, () => resolve(socket));
    socket.once("error", reject);
  });
}

export type Answer = { status: number; body: string };

/** One request on a fresh connection from `localAddress`; rejects on a dropped or reset connection. */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method ?? "GET", headers: init.headers, localAddress, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}

/**
 * Keeps `count` idle sockets open from `localAddress`, opening a new one whenever one is closed or
 * refused (after `reconnectMs`), as a client trying to hold every connection would; `stop` closes them.
 */
export function holdSockets(
  baseUrl: string,
  localAddress: string,
  count: number,
  reconnectMs = 50,
): { stop: () => void; opened: () => number } {
  let stopped = false;
  let opened = 0;
  const sockets = new Set<Socket>();
  const keepOne = () => {
    if (stopped) return;
    const { hostname, port } = new URL(baseUrl);
    const socket = connect({ port: Number(port), host: hostname, localAddress });
    sockets.add(socket);
    socket.on("connect", () => opened++);
    socket.on("error", () => undefined);
    socket.on("data", () => undefined);
    socket.once("close", () => {
      sockets.delete(socket);
      setTimeout(keepOne, reconnectMs);
    });
  };
  for (let i = 0; i < count; i++) keepOne();
  return {
    opened: () => opened,
    stop: () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** What the server sends on `socket` until it closes it, or null if `giveUpMs` passes first. */
export function readUntilClosed(socket: Socket, giveUpMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    let received = "";
    const timer = setTimeout(() => resolve(null), giveUpMs);
    socket.on("data", (data) => (received += String(data)));
    socket.on("error", () => undefined);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/**
 * Sends a request line and headers, then dribbles `dribble` every `everyMs` on `socket` until the
 * server closes it; resolves with what the server sent (null: still open after `giveUpMs`).
 */
export async function dribble(socket: Socket, head: string, piece: string, everyMs: number, giveUpMs: number): Promise<string | null> {
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(piece);
  }, everyMs);
  try {
    return await readUntilClosed(socket, giveUpMs);
  } finally {
    clearInterval(timer);
    socket.destroy();
  }
}

/**
 * Opens up to `attempts` sockets and holds them; resolves with the index of the first the server
 * closed at once (-1: it kept them all), then closes them all.
 */
export async function firstDroppedSocket(baseUrl: string, attempts: number): Promise<number> {
  const sockets: Socket[] = [];
  const closed: Promise<string | null>[] = [];
  try {
    for (let i = 0; i < attempts; i++) {
      const socket = await openSocket(baseUrl);
      sockets.push(socket);
      closed.push(readUntilClosed(socket, 10_000));
    }
    return await Promise.race(closed.map((done, index) => done.then((text) => (text === null ? -1 : index))));
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

// Kernel TCP states (include/net/tcp_states.h) of a socket the server still holds open: connected,
// or told by the client it is done but not yet closed by the server.
const HELD_BY_SERVER = new Set(["01", "08"]);

/** Sockets the server listening on `port` still holds (from /proc/net/tcp{,6}: local port, state). */
async function serverSockets(port: number): Promise<number> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let held = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${hexPort}`) && state && HELD_BY_SERVER.has(state)) held++;
    }
  }
  return held;
}

/**
 * Waits until the server at `baseUrl` holds at most `atMost` sockets: one flood's sockets, closed by
 * the client, are counted by the server until it has seen each close, which a loaded machine takes a
 * while to do; the next flood would otherwise start on a server still full of the last one's.
 */
export async function serverSocketsSettled(baseUrl: string, atMost: number, giveUpMs = 60_000): Promise<void> {
  const port = Number(new URL(baseUrl).port);
  const giveUpAt = Date.now() + giveUpMs;
  let held = await serverSockets(port);
  while (held > atMost) {
    if (Date.now() > giveUpAt) throw new Error(`the server on port ${port} still holds ${held} sockets (at most ${atMost} expected)`);
    await new Promise((done) => setTimeout(done, 100));
    held = await serverSockets(port);
  }
}
