import next from "next";
import { isWebhookRequest } from "@/lib/inbox/ingest/ingest-server";
import { isTrustedAddress, PEER_ADDRESS_HEADER, trustedProxySet, trustPeerAddressHeader } from "@/lib/request/client-address";
import { refuseBody } from "@/lib/request/body-limits";
import { createLimitedServer } from "@/lib/request/create-limited-server";
import { isMalformedTarget, MALFORMED_TARGET } from "@/lib/request/malformed-path";
import { refuseEarly } from "@/lib/request/refuse-early";
import { loadProcessConfig } from "@/lib/runtime/process-config";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";

// The production web server (`npm start` runs it; `next start` would do the same minus this): Next's
// handlers can't see the socket, so every request gets the peer address in a header we overwrite,
// which lib/request/client-address reads together with TRUSTED_PROXIES. Args: [--hostname H].

// The request handlers inside Next take theirs from lib/runtime/web-runtime.ts.
const config = loadProcessConfig();
const hostnameIndex = process.argv.indexOf("--hostname");
const hostname = hostnameIndex > 0 ? process.argv[hostnameIndex + 1] : undefined;

trustPeerAddressHeader();
const app = next({ dev: false, hostname, port: config.port });
const handle = app.getRequestHandler();
await app.prepare();

const proxies = trustedProxySet(config.trustedProxies);
const server = createLimitedServer(
  config.http,
  (request, response) => {
    request.headers[PEER_ADDRESS_HEADER] = request.socket.remoteAddress ?? "";
    // Refused before Next sees them: a target no route can decode, and a body no endpoint would take.
    if (isMalformedTarget(request.url ?? "/")) return refuseEarly(request, response, 400, MALFORMED_TARGET);
    const bodyRefusal = refuseBody(request, config.bodyLimitBytes);
    if (bodyRefusal) {
      const code = bodyRefusal.status === 413 ? "PAYLOAD_TOO_LARGE" : "LENGTH_REQUIRED";
      return refuseEarly(request, response, bodyRefusal.status, { error: bodyRefusal.error, code });
    }
    handle(request, response).catch((error: unknown) => {
      console.error("[web] request failed:", error instanceof Error ? error.name : "error");
      if (!response.headersSent) response.statusCode = 500;
      response.end();
    });
  },
  { uncapped: (address) => isTrustedAddress(proxies, address), reservedFor: isWebhookRequest },
);
server.listen(config.port, hostname, () => {
  console.log(`[web] listening on ${hostname ?? "all interfaces"}:${config.port}`);
});

stopOnSignals(async () => {
  const closed = new Promise((done) => server.close(done));
  server.closeIdleConnections();
  await closed;
  await app.close();
});
