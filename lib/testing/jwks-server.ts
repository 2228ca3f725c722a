import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";

// A key pair and a JWKS endpoint like the one Pagar.me publishes, for tests: the server can be told
// to fail, stall or answer too much, and counts what it is asked.

export type SigningKey = { kid: string; privateKey: KeyObject; jwk: JsonWebKey & { kid: string; use: string; alg: string } };

export function generateSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...(publicKey.export({ format: "jwk" }) as JsonWebKey), kid, use: "sig", alg: "RS256" } };
}

/** The X-Webhook-Asymmetric-Signature header Pagar.me sends: RS256 over the raw body, base64url. */
export function asymmetricSignature(key: SigningKey, body: string | Buffer): string {
  return `alg=RS256; kid=${key.kid}; signature=${sign("sha256", Buffer.from(body), key.privateKey).toString("base64url")}`;
}

export type JwksServer = {
  url: string;
  requests: () => number;
  publish: (keys: SigningKey[]) => void;
  /** Answer every request with this status (an outage) until set back to null. */
  failWith: (status: number | null) => void;
  /** Wait this long before answering (a slow endpoint). */
  delay: (ms: number) => void;
  /** Answer with a body padded to this many bytes. */
  padTo: (bytes: number) => void;
  close: () => Promise<void>;
};

export async function startJwksServer(keys: SigningKey[] = []): Promise<JwksServer> {
  let published = keys;
  let failure: number | null = null;
  let delayMs = 0;
  let padding = 0;
  let count = 0;
  const server: Server = createServer((request, response) => {
    count++;
    setTimeout(() => {
      if (failure !== null) {
        response.writeHead(failure).end("unavailable");
        return;
      }
      const body = JSON.stringify({ keys: published.map((key) => key.jwk), padding: "x".repeat(Math.max(0, padding)) });
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    }, delayMs);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    requests: () => count,
    publish: (next) => {
      published = next;
    },
    failWith: (status) => {
      failure = status;
    },
    delay: (ms) => {
      delayMs = ms;
    },
    padTo: (bytes) => {
      padding = bytes;
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
