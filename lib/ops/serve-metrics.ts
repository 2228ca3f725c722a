import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkMetricsAccess } from "./render-metrics";
import { METRICS_CONTENT_TYPE } from "../observability/metrics";

/**
 * The worker's own `GET /metrics` on a port of its own (WORKER_METRICS_PORT), with the same bearer
 * token as the web endpoint. Resolves once listening; `port` 0 picks a free one (tests).
 */
export async function serveMetrics(
  options: { port: number; host?: string; token: string | undefined },
  render: () => Promise<string>,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const reply = (status: number, body: string, type = "text/plain; charset=utf-8") => {
      response.writeHead(status, { "content-type": type });
      response.end(body);
    };
    if (request.method !== "GET" || request.url !== "/metrics") return reply(404, "not found\n");
    const access = checkMetricsAccess(options.token, request.headers.authorization);
    if (access === "not_configured") return reply(404, "metrics are off: set METRICS_TOKEN\n");
    if (access === "unauthorized") return reply(401, "missing or invalid bearer token\n");
    render().then(
      (text) => reply(200, text, METRICS_CONTENT_TYPE),
      (error: unknown) => reply(503, `metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((listening, failed) => {
    server.once("error", failed);
    server.listen(options.port, options.host, () => listening());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
