import type { IncomingMessage, ServerResponse } from "node:http";

// How long a refused request's remaining body is read and dropped before its socket is closed.
const LINGER_MS = 2000;

/**
 * Answers a request without reading its body, then closes the connection the way servers must: a
 * socket closed while the client is still sending makes the kernel answer with a reset, which can
 * wipe the answer before the client reads it (Node's own "Connection: close" does just that). So the
 * rest of the body is read and dropped (never kept) and the socket closed once it ends, or after
 * LINGER_MS at the latest.
 */
export function refuseEarly(request: IncomingMessage, response: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
  const { socket } = request;
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  request.once("end", () => {
    clearTimeout(linger);
    socket.end();
  });
  request.resume();
}
