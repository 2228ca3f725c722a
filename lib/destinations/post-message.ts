import http from "node:http";
import https from "node:https";
import { storedHeaders, type AttemptHeaders } from "./attempt-headers";
import { destinationUrlProblem, refusingLookup } from "./refuse-address";

/**
 * What one POST to a destination came to. `statusCode` null: no answer (timeout, refused, network).
 * The headers are as stored (bounded, secrets masked): what was sent, and what the answer carried.
 */
export type PostResult = {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  requestHeaders?: AttemptHeaders;
  responseHeaders?: AttemptHeaders | null;
};

export const EXCERPT_BYTES = 1024;

// Kept-alive connections: a destination takes hundreds of messages a second over a few sockets.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 128 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 128 }),
};

/** How a message is sent: its timeout, and the hosts destinations may point at (DESTINATION_ALLOWED_HOSTS; none: any). */
export type PostPolicy = { timeoutMs: number; allowedHosts: readonly string[] };

/**
 * POSTs `body` to `url`, refusing link-local and metadata addresses (the literal host, and every
 * address its name resolves to) and hosts outside the allow-list, never following a redirect (a 3xx
 * is an answer like any other), giving up after `timeoutMs`. Keeps the first KiB of the answer.
 */
export function postMessage(url: string, body: string, headers: Record<string, string>, policy: PostPolicy): Promise<PostResult> {
  const { timeoutMs } = policy;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const sent = { ...headers, "content-length": String(Buffer.byteLength(body)), "user-agent": "webhook-inbox" };
    const finish = (result: Omit<PostResult, "latencyMs" | "requestHeaders">) => {
      if (settled) return;
      settled = true;
      resolve({ responseHeaders: null, ...result, requestHeaders: storedHeaders(sent), latencyMs: elapsed() });
    };
    const target = new URL(url);
    const problem = destinationUrlProblem(url, policy.allowedHosts);
    if (problem) return finish({ statusCode: null, excerpt: null, error: problem });
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) return finish({ statusCode: null, excerpt: null, error: `unsupported protocol ${target.protocol}` });
    const request = (target.protocol === "https:" ? https : http).request(target, {
      method: "POST",
      agent,
      lookup: refusingLookup,
      // The whole exchange, answer included: a host that trickles its answer is cut off too.
      signal: AbortSignal.timeout(timeoutMs),
      headers: sent,
    });
    const describe = (error: Error) =>
      error.name === "AbortError" || error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : error.message.slice(0, 300);
    request.on("error", (error) => finish({ statusCode: null, excerpt: null, error: describe(error) }));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on("data", (chunk: Buffer) => {
        if (kept < EXCERPT_BYTES) {
          chunks.push(chunk.subarray(0, EXCERPT_BYTES - kept));
          kept += Math.min(chunk.length, EXCERPT_BYTES - kept);
        }
      });
      response.on("error", (error) => finish({ statusCode: response.statusCode ?? null, excerpt: null, error: describe(error) }));
      response.on("end", () => {
        // Bytes cut mid-character decode to a replacement character; the excerpt is for people.
        const excerpt = Buffer.concat(chunks).toString("utf8");
        finish({ statusCode: response.statusCode ?? null, excerpt, error: null, responseHeaders: storedHeaders(response.headers) });
      });
    });
    request.end(body);
  });
}
