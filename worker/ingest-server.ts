import { createIngestServer } from "@/lib/inbox/ingest/ingest-server";
import { logger } from "@/lib/observability/logger";
import { startIngestRuntime } from "@/lib/runtime/ingest-runtime";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";

// `npm run ingest`: a dedicated webhook server on INGEST_PORT (lean node:http, /api/webhooks/* only),
// a bulkhead between the gateways and console load. Same ingest code and replies as the web route;
// needs a migrated database (npm run db:migrate or npm start ran once) and a worker to drain.
const runtime = await startIngestRuntime();
const { config } = runtime;
const log = logger("ingest");

const server = createIngestServer({ pool: runtime.pool, boss: runtime.boss, config, accounts: runtime.accounts });
server.listen(config.ingestPort, () => log.info({ port: config.ingestPort }, "listening (POST /api/webhooks/{provider}[/{account}])"));

stopOnSignals(
  async (signal) => {
    log.info({ signal }, "finishing in-flight deliveries");
    // close() stops accepting and waits for requests in flight; idle keep-alive sockets go at once.
    const closed = new Promise((done) => server.close(done));
    server.closeIdleConnections();
    await closed;
    await runtime.close();
  },
  { reportFailure: (error) => log.error({ error: error instanceof Error ? error.message : String(error) }, "stopping failed") },
);
