import { appConfig, loadEnvFiles, requireDatabaseUrl } from "@/lib/config/env";
import { migrateDatabase } from "@/lib/db/migrate";

// `npm run cli -- <command>`: operator commands. `npm run db:migrate` is `cli migrate`.

const USAGE = `usage: npm run cli -- <command>
  migrate                 apply database migrations and create the queues`;

async function main(argv: string[]): Promise<number> {
  loadEnvFiles();
  const [command] = argv;
  switch (command) {
    case "migrate": {
      const result = await migrateDatabase(requireDatabaseUrl(appConfig()));
      console.log(`applied ${result.applied.length} migration(s); ${result.alreadyApplied.length} already applied`);
      for (const name of result.applied) console.log(`  + ${name}`);
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
