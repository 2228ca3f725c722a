import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { appConfig } from "@/lib/config/env";
import { loadEnvFiles, removeEmbeddedUrl, writeEmbeddedUrl } from "@/lib/config/env-files";
import { startEmbeddedPostgres } from "@/lib/db/embedded";
import { stopOnSignals } from "@/lib/runtime/stop-on-signals";

// Runs the embedded PostgreSQL in a process of its own, started by the launcher in its own process
// group: Ctrl-C in the terminal reaches the web server and the worker (via the launcher) first, and
// the database only stops after they have drained. It stops on SIGTERM or when the launcher dies.
// Run directly (`tsx worker/embedded-database.ts dataDir urlFile`, as .ci/run does when no server
// answers) it writes the superuser's URL (tests create databases) to urlFile, mode 0600, and runs until
// stopped. Neither URL is ever printed: they carry passwords.

loadEnvFiles();
const dataDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
let database: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
try {
  database = await startEmbeddedPostgres(dataDir, undefined, appConfig().embeddedPostgresPort);
} catch (error) {
  console.error(`[embedded PostgreSQL] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// Started by the launcher (the local trial's database): leave the URL for `npm run cli`.
const launched = process.send !== undefined;
if (launched) writeEmbeddedUrl(database.url, process.cwd(), process.env.NODE_ENV === "development");

stopOnSignals(
  async () => {
    if (launched) removeEmbeddedUrl();
    await database.stop();
  },
  {
    whenLauncherGone: true,
    reportFailure: (error) => console.error("[embedded-postgres] stop failed:", error instanceof Error ? error.message : error),
  },
);

if (process.send) {
  process.send({ url: database.url, port: database.port, dataDir: database.dataDir });
} else if (process.argv[3]) {
  writeFileSync(resolve(process.argv[3]), `${database.adminUrl}\n`, { mode: 0o600 });
}
