import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "./gateway-client";

// A gateway answering far more than any page should be: the client stops reading at its bound,
// whether the size was declared or the body just keeps coming, instead of buffering it all.

const MB = 1024 * 1024;
let sentBytes = 0;
const server = createServer((request, response) => {
  if (request.url === "/declared") {
    response.writeHead(200, { "content-type": "application/json", "content-length": String(400 * MB) });
    return void response.end();
  }
  if (request.url === "/small") return void response.writeHead(200, { "content-type": "application/json" }).end('{"data":[1,2]}');
  if (request.url === "/headers") return void response.writeHead(200).end(JSON.stringify(request.headers));
  if (request.url === "/not-json") return void response.writeHead(200).end("<html>");
  // Chunked, without end: 1 MB pieces for as long as the client reads.
  response.writeHead(200, { "content-type": "application/json" });
  const piece = Buffer.alloc(MB, "a");
  const pump = () => {
    while (!response.destroyed && sentBytes < 400 * MB) {
      sentBytes += piece.length;
      if (!response.write(piece)) return void response.once("drain", pump);
    }
  };
  response.write('{"data":"');
  pump();
});
let base: string;

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((done) => server.close(() => done()));
});

const client = (breakerFailures = 10, headers: Record<string, string> = {}) =>
  createGatewayClient("bounded", {
    baseUrl: base,
    headers,
    timeoutMs: 10_000,
    maxResponseBytes: 2 * MB,
    ratePerSecond: 100,
    breakerFailures,
    breakerCooldownMs: 60_000,
  });

describe("a gateway answer past the bound", () => {
  it("fails with a clear error after reading about the bound of a body that keeps coming", async () => {
    await expect(client().fetchJson("/streamed")).rejects.toThrow("bounded answered more than 2097152 bytes to GET /streamed");
    // The server stopped being read: it got a few MB out (socket buffers), not 400.
    expect(sentBytes).toBeLessThan(40 * MB);
  });

  it("fails before reading a body declared larger than the bound", async () => {
    await expect(client().fetchJson("/declared")).rejects.toThrow("bounded answered more than 2097152 bytes to GET /declared");
  });

  it("reads answers within the bound, refuses non-JSON, and counts both failures against the gateway", async () => {
    const gateway = client(2);
    expect(await gateway.fetchJson("/small")).toEqual({ data: [1, 2] });
    await expect(gateway.fetchJson("/not-json")).rejects.toThrow("not JSON");
    await expect(gateway.fetchJson("/declared")).rejects.toThrow("more than");
    await expect(gateway.fetchJson("/small")).rejects.toThrow(/circuit/i);
  });
});

describe("a request's own headers", () => {
  it("go out beside the gateway's authentication, which they cannot replace", async () => {
    const gateway = client(10, { authorization: "Bearer sk_platform" });
    const sent = await gateway.fetchJson("/headers", { "Stripe-Account": "acct_1", Authorization: "Bearer other" });
    expect(sent).toMatchObject({ "stripe-account": "acct_1", authorization: "Bearer sk_platform" });
    expect(await gateway.fetchJson("/headers")).not.toHaveProperty("stripe-account");
  });
});
