import { z } from "zod";
import { requireSessionPooling } from "../../db/pool";
import { eventFilterSchema } from "../../inbox/queries/event-filter";
import { replayEvents } from "../../inbox/replay/replay-events";
import { restoreArchivedEvents, type RestoreSelector } from "../../inbox/retention/restore-archived-events";
import { retentionJob } from "../../jobs/definitions/retention";
import { sweeperJob } from "../../jobs/definitions/sweeper";
import { runJob } from "../../jobs/work-jobs";
import { cliActor, command, flag, option } from "./cli-command";
import { describePartitionArchive } from "./partition-commands";
import { plural } from "../../text/words";

// The stored events: replay, sweep, retention and restore.

const perProvider = (byProvider: Record<string, number>) =>
  Object.entries(byProvider)
    .map(([provider, count]) => `${provider}: ${count}`)
    .join(", ");

/**
 * Not the `replays` job: that one executes a run the console recorded (progress, resumption, a dead
 * letter); this replays its filter in the foreground with replayEvents, the function a run calls
 * per batch.
 */
export const replayCommand = command({
  name: "replay",
  summary: "put stored events back to pending and dispatch them",
  options: z.object({
    provider: option(z.string().optional(), { arg: "P", help: "only this provider" }),
    status: option(z.array(z.string()).optional(), {
      arg: "S",
      help: "failed, ignored or processed (repeat or comma-separate; default failed,ignored)",
    }),
    since: option(z.string().optional(), { arg: "T" }),
    until: option(z.string().optional(), { arg: "T", help: "received in [T, T) (ISO-8601)" }),
    type: option(z.string().optional(), { arg: "T", help: "only this event type" }),
    "dry-run": flag("print what would be replayed, change nothing"),
  }),
  run: async (runtime, values) => {
    // The console's filter schema, so its messages name the filter's fields (statuses.0: ...).
    const filter = eventFilterSchema.parse({
      provider: values.provider,
      statuses: values.status?.flatMap((value) => value.split(",")).map((value) => value.trim()),
      receivedFrom: values.since,
      receivedTo: values.until,
      type: values.type,
    });
    const deps = { pool: runtime.pool(), boss: await runtime.boss(), config: runtime.config };
    const result = await replayEvents(deps, filter, { actor: cliActor(), dryRun: values["dry-run"] });
    const providers = perProvider(result.byProvider);
    console.log(`${result.dryRun ? "would replay" : "replayed"} ${plural(result.total, "event")}${providers ? ` (${providers})` : ""}`);
    return 0;
  },
});

const staleMinutes = "--stale-minutes must be a number >= 0";

/** The sweeper's run, now. */
export const sweepCommand = command({
  name: "sweep",
  summary: "re-dispatch stale pending events now",
  options: z.object({
    "stale-minutes": option(z.coerce.number({ error: staleMinutes }).min(0, staleMinutes).optional(), {
      arg: "N",
      help: "pending for at least N minutes (default SWEEPER_STALE_MINUTES)",
    }),
  }),
  run: async (runtime, values) => {
    const minutes = values["stale-minutes"];
    const result = await runJob(sweeperJob, await runtime.jobDeps(), minutes === undefined ? {} : { staleSeconds: minutes * 60 });
    console.log(
      result.skipped ? "another sweep is running; nothing done" : `re-dispatched ${plural(result.dispatched, "stale pending event")}`,
    );
    return 0;
  },
});

/** Retention's run, now: the payloads, then (RETENTION_PARTITION_MONTHS) the whole partitions, as scheduled. */
export const retentionCommand = command({
  name: "retention",
  summary: "archive and purge the payloads of settled events older than RETENTION_DAYS",
  options: z.object({ "dry-run": flag("print what would be archived, change nothing") }),
  run: async (runtime, values) => {
    // Its run lock is a session advisory lock.
    requireSessionPooling(runtime.config.databasePooler, "Retention");
    const { archiveDir } = runtime.config.retention;
    const result = await runJob(retentionJob, await runtime.jobDeps(), { dryRun: values["dry-run"] });
    const providers = perProvider(result.byProvider);
    if (result.skipped) console.log("another retention run is in progress; nothing done");
    else {
      console.log(
        `${result.dryRun ? "would archive" : "archived and purged"} ${plural(result.events, "event")}, ${plural(result.bytes, "raw byte")}, ` +
          `received before ${result.cutoff.toISOString()}${providers ? ` (${providers})` : ""}` +
          (result.dryRun ? "" : ` into ${archiveDir}`),
      );
    }
    for (const outcome of result.partitions) console.log(describePartitionArchive(outcome, archiveDir));
    if (result.financial) {
      const { payments, transitions, changes, events, cutoff } = result.financial;
      console.log(
        `purged ${plural(payments, "payment")} unchanged since ${cutoff.toISOString()}, with ${plural(transitions, "transition")}, ${plural(changes, "change")} and ${plural(events, "event")}`,
      );
    }
    return 0;
  },
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `--id N...` or `--provider P --from D --to D` (whole UTC days, both inclusive). */
const restoreOptions = z
  .object({
    id: option(z.array(z.string()).optional(), { arg: "N", help: "one event (repeat for several)" }),
    provider: option(z.string().optional(), { arg: "P" }),
    from: option(z.string().optional(), { arg: "D" }),
    to: option(z.string().optional(), { arg: "D", help: "a provider's events received in [D, D] (dates, UTC, inclusive)" }),
  })
  .transform((values, context): RestoreSelector => {
    if (values.id?.length) {
      const ids = values.id.flatMap((value) => value.split(",")).map((value) => Number(value.trim()));
      if (!ids.every((id) => Number.isInteger(id) && id > 0)) {
        context.addIssue({ code: "custom", message: "--id must be a positive whole number" });
        return z.NEVER;
      }
      return { ids };
    }
    const { provider, from, to } = values;
    if (!provider || !from || !to || !DAY.test(from) || !DAY.test(to)) {
      context.addIssue({ code: "custom", message: "restore needs --id N, or --provider P --from YYYY-MM-DD --to YYYY-MM-DD" });
      return z.NEVER;
    }
    const end = new Date(`${to}T00:00:00Z`);
    end.setUTCDate(end.getUTCDate() + 1);
    return { provider, from: new Date(`${from}T00:00:00Z`), to: end };
  });

export const restoreCommand = command({
  name: "restore",
  summary: "bring archived payloads back (checksums verified)",
  options: restoreOptions,
  run: async (runtime, selector) => {
    const result = await restoreArchivedEvents({ pool: runtime.pool(), config: runtime.config }, selector, { actor: cliActor() });
    console.log(`restored ${plural(result.restored, "archived event")}`);
    return 0;
  },
});
