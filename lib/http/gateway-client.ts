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
  ratePerSecond: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  onCircuitOpen?: () => void;
};

export type GatewayClient = {
  fetchJson: (path: string) => Promise<unknown>;
  breaker: CircuitBreaker;
};

/**
 * The outbound client for one gateway's API: every call waits for the rate limiter, runs under a
 * timeout, and goes through a circuit breaker. Timeouts, network errors, 5xx and 429 count as
 * failures of the gateway; other 4xx answers (a missing charge) are errors of the request only.
 */
export function createGatewayClient(name: string, options: GatewayClientOptions): GatewayClient {
  const limiter = new RateLimiter(options.ratePerSecond);
  const breaker = new CircuitBreaker(name, options.breakerFailures, options.breakerCooldownMs, Date.now, options.onCircuitOpen);
  const base = options.baseUrl.replace(/\/+$/, "");
  trackBreaker(name, breaker);

  async function fetchJson(path: string): Promise<unknown> {
    try {
      const json = await fetchOnce(path);
      recordRefetch(name, true);
      return json;
    } catch (error) {
      recordRefetch(name, false);
      throw error;
    }
  }

  async function fetchOnce(path: string): Promise<unknown> {
    const answer = await breaker.run(async () => {
      await limiter.acquire();
      const response = await fetch(`${base}${path}`, {
        headers: { accept: "application/json", ...options.headers },
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (response.status >= 500 || response.status === 429) {
        throw new GatewayHttpError(response.status, `${name} answered ${response.status} to GET ${path}`);
      }
      return response;
    });
    if (!answer.ok) throw new GatewayHttpError(answer.status, `${name} answered ${answer.status} to GET ${path}`);
    return answer.json();
  }

  return { fetchJson, breaker };
}
