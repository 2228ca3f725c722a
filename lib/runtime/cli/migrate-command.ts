import { migrateWithQueues } from "../migrate-with-queues";
import { command } from "./cli-command";
import { plural } from "../../text/words";

/** `npm run db:migrate` is this command. */
export const migrateCommand = command({
  name: "migrate",
  summary: "apply database migrations and create the queues",
  run: async ({ config }) => {
    const result = await migrateWithQueues(config, "Migrating");
    console.log(`applied ${plural(result.applied.length, "migration")}; ${result.alreadyApplied.length} already applied`);
    for (const name of result.applied) console.log(`  + ${name}`);
    return 0;
  },
});
