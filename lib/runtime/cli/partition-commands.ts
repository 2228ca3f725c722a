import { z } from "zod";
import { archiveInboxPartition, type PartitionArchiveOutcome } from "../../inbox/partitions/archive-inbox-partition";
import { ensureInboxPartitions } from "../../inbox/partitions/ensure-inbox-partitions";
import { countStrayEvents, listInboxPartitions } from "../../inbox/partitions/list-inbox-partitions";
import { restoreInboxPartition } from "../../inbox/partitions/restore-inbox-partition";
import { cliActor, command, option } from "./cli-command";
import { plural } from "../../text/words";

// The inbox's monthly partitions: list, create a month, archive a whole month, restore it.

export function describePartitionArchive(outcome: PartitionArchiveOutcome, archiveDir: string): string {
  const { name } = outcome;
  if (outcome.outcome === "archived") return `archived ${plural(outcome.rows, "event")} of ${name} into ${archiveDir}/${outcome.file}`;
  if (outcome.outcome === "unsettled") return `${name} still holds pending or failed events; nothing done`;
  return `${name} is busy (its lock was not granted in time, or another run holds it); try again`;
}

/** `--name`, which `partitions` lists. */
function partitionName(commandName: string) {
  const needed = `${commandName} needs --name (see npm run cli -- partitions)`;
  return z.object({ name: option(z.string({ error: needed }).min(1, needed), { arg: "webhook_inbox_pYYYYMM" }) });
}

export const partitionsCommand = command({
  name: "partitions",
  summary: "list the inbox's monthly partitions (attached, archived) and stray events",
  run: async (runtime) => {
    const pool = runtime.pool();
    for (const partition of await listInboxPartitions(pool)) {
      const from = partition.from?.toISOString().slice(0, 10) ?? "(start)";
      console.log(
        `${partition.name.padEnd(24)} ${from} .. ${partition.to.toISOString().slice(0, 10)}  ${partition.state.padEnd(8)} ~${partition.rows} rows`,
      );
    }
    console.log(`${plural(await countStrayEvents(pool), "event")} in the default partition`);
    return 0;
  },
});

const needsMonth = "partitions:create needs --month YYYY-MM";

export const createPartitionCommand = command({
  name: "partitions:create",
  summary: "create the partition of a month (and move its strays out of the default partition)",
  options: z.object({
    month: option(z.string({ error: needsMonth }).regex(/^\d{4}-(0[1-9]|1[0-2])$/, needsMonth), { arg: "YYYY-MM" }),
  }),
  run: async (runtime, { month }) => {
    const created = await ensureInboxPartitions(runtime.pool(), { now: new Date(`${month}-01T00:00:00Z`), monthsAhead: 0 });
    console.log(created.length > 0 ? `created ${created.join(", ")}` : "a partition already covers that month");
    return 0;
  },
});

export const archivePartitionCommand = command({
  name: "partitions:archive",
  summary: "archive a whole partition to ARCHIVE_DIR and drop it (settled events only)",
  options: partitionName("partitions:archive"),
  run: async (runtime, { name }) => {
    const { archiveDir } = runtime.config.retention;
    console.log(
      describePartitionArchive(await archiveInboxPartition({ pool: runtime.pool(), archiveDir }, name, { name: cliActor() }), archiveDir),
    );
    return 0;
  },
});

export const restorePartitionCommand = command({
  name: "partitions:restore",
  summary: "bring an archived partition back (checksums verified)",
  options: partitionName("partitions:restore"),
  run: async (runtime, { name }) => {
    const deps = { pool: runtime.pool(), archiveDir: runtime.config.retention.archiveDir };
    const { restored } = await restoreInboxPartition(deps, name, { actor: cliActor() });
    console.log(`restored ${plural(restored, "event")} into ${name}`);
    return 0;
  },
});
