import { appConfig, requireDatabaseUrl } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import { createPool } from "@/lib/db/pool";
import { createIngestServer } from "@/lib/inbox/ingest-server";
import { createProducer } from "@/lib/queue/boss";

// `npm run ingest`: a dedicated webhook server on INGEST_PORT (lean node:http, /api/webhooks/* only),
// a bulkhead between the gateways and console load. Same ingest code and replies as the web route;
// needs a migrated database (npm run db:migrate or npm start ran once) and a worker to drain.
loadEnvFiles();
const config = appConfig();
const url = requireDatabaseUrl(config);
const pool = createPool(url, config.databasePoolMax, "webhook-inbox:ingest");
const boss = createProducer(url);
boss.on("error", (error) => console.error("[ingest] queue error:", error.message));
await boss.start();

const server = createIngestServer({ pool, boss, config });
server.listen(config.ingestPort, () => console.log(`[ingest] listening on :${config.ingestPort} (POST /api/webhooks/{provider})`));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`[ingest] ${signal}: finishing in-flight deliveries`);
  // close() stops accepting and waits for requests in flight; idle keep-alive sockets go at once.
  const closed = new Promise((done) => server.close(done));
  server.closeIdleConnections();
  await closed;
  await boss.stop({ graceful: false });
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
