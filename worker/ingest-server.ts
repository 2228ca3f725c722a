import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool } from "@/lib/db/pool";
import { createIngestServer } from "@/lib/inbox/ingest/ingest-server";
import { configureLogger, logger } from "@/lib/observability/logger";
import { createProducer } from "@/lib/queue/boss";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";

// `npm run ingest`: a dedicated webhook server on INGEST_PORT (lean node:http, /api/webhooks/* only),
// a bulkhead between the gateways and console load. Same ingest code and replies as the web route;
// needs a migrated database (npm run db:migrate or npm start ran once) and a worker to drain.
loadEnvFiles();
const config = appConfig();
configureLogger({ level: config.logLevel, format: config.logFormat });
const log = logger("ingest");
const url = requireDatabaseUrl(config);
const pool = createPool(url, config.databasePoolMax, "webhook-inbox:ingest", config.databaseTimeouts, { pooler: config.databasePooler });
const boss = createProducer(url, config.databaseTimeouts.connectMs);
await boss.start();

const server = createIngestServer({ pool, boss, config });
server.listen(config.ingestPort, () => log.info({ port: config.ingestPort }, "listening (POST /api/webhooks/{provider})"));

stopOnSignals(
  async (signal) => {
    log.info({ signal }, "finishing in-flight deliveries");
    // close() stops accepting and waits for requests in flight; idle keep-alive sockets go at once.
    const closed = new Promise((done) => server.close(done));
    server.closeIdleConnections();
    await closed;
    await boss.stop({ graceful: false });
    await pool.end();
  },
  { reportFailure: (error) => log.error({ error: error instanceof Error ? error.message : String(error) }, "stopping failed") },
);
