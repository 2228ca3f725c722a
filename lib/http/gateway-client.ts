import { BodyTooLargeError, readBodyWithLimit } from "../request/read-body";
import { CircuitBreaker } from "./circuit-breaker";
import { RateLimiter } from "./rate-limiter";
import { recordRefetch, trackBreaker } from "../observability/metrics";

export class GatewayHttpError extends Error {
  override name = "GatewayHttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type GatewayClientOptions = {
  baseUrl: string;
  /** Sent with every request: the gateway's authentication, built by its driver. */
  headers: Record<string, string>;
  timeoutMs: number;
  /** The largest answer read; past it the call fails (a list page of hundreds of MB killed the web process). */
  maxResponseBytes: number;
  ratePerSecond: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  onCircuitOpen?: () => void;
};

export type GatewayClient = {
  /** `headers`: the request's own (a driver's, e.g. which account it reads), beside options.headers. */
  fetchJson: (path: string, headers?: Record<string, string>) => Promise<unknown>;
  breaker: CircuitBreaker;
  /** The same gateway (its rate limiter and circuit breaker) with another account's authentication instead of options.headers. */
  authenticatedWith: (headers: Record<string, string>) => GatewayClient;
};

/**
 * The outbound client for one gateway's API: every call waits for the rate limiter, runs under a
 * timeout, and goes through a circuit breaker. Timeouts, network errors, 5xx and 429 count as
 * failures of the gateway; other 4xx answers (a missing charge) are errors of the request only. An
 * answer is read up to maxResponseBytes, streamed and counted, never buffered whole first: a larger
 * one, or one that isn't JSON, fails the call and counts against the gateway too.
 */
export function createGatewayClient(name: string, options: GatewayClientOptions): GatewayClient {
  const limiter = new RateLimiter(options.ratePerSecond);
  const breaker = new CircuitBreaker(name, options.breakerFailures, options.breakerCooldownMs, Date.now, options.onCircuitOpen);
  trackBreaker(name, breaker);
  return authenticatedClient(name, options, limiter, breaker, options.headers);
}

function authenticatedClient(
  name: string,
  options: GatewayClientOptions,
  limiter: RateLimiter,
  breaker: CircuitBreaker,
  authentication: Record<string, string>,
): GatewayClient {
  const base = options.baseUrl.replace(/\/+$/, "");

  // The authentication set last (names compared as HTTP does, case-insensitively): a request's own
  // headers never replace it, nor add a second value to it.
  function requestHeaders(own: Record<string, string>): Headers {
    const sent = new Headers({ accept: "application/json" });
    for (const [name, value] of [...Object.entries(own), ...Object.entries(authentication)]) sent.set(name, value);
    return sent;
  }

  async function fetchJson(path: string, headers: Record<string, string> = {}): Promise<unknown> {
    try {
      const json = await fetchOnce(path, headers);
      recordRefetch(name, true);
      return json;
    } catch (error) {
      recordRefetch(name, false);
      throw error;
    }
  }

  async function fetchOnce(path: string, headers: Record<string, string>): Promise<unknown> {
    const answer = await breaker.run(async () => {
      await limiter.acquire();
      const response = await fetch(`${base}${path}`, {
        headers: requestHeaders(headers),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (response.status >= 500 || response.status === 429) {
        await response.body?.cancel();
        throw new GatewayHttpError(response.status, `${name} answered ${response.status} to GET ${path}`);
      }
      if (!response.ok) return response;
      return { ok: true as const, json: await readJson(response, path) };
    });
    if (!answer.ok) {
      await answer.body?.cancel();
      throw new GatewayHttpError(answer.status, `${name} answered ${answer.status} to GET ${path}`);
    }
    return answer.json;
  }

  async function readJson(response: Response, path: string): Promise<unknown> {
    let raw: Buffer;
    try {
      raw = await readBodyWithLimit(response, options.maxResponseBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      throw new GatewayHttpError(response.status, `${name} answered more than ${options.maxResponseBytes} bytes to GET ${path}`);
    }
    try {
      return JSON.parse(raw.toString("utf8"));
    } catch {
      throw new GatewayHttpError(response.status, `${name} answered something that is not JSON to GET ${path}`);
    }
  }

  return { fetchJson, breaker, authenticatedWith: (headers) => authenticatedClient(name, options, limiter, breaker, headers) };
}
