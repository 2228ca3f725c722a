import { z } from "zod";
import { eventFilterSchema } from "../inbox/queries/event-filter";
import { REPLAYABLE_STATUSES, replayEvents } from "../inbox/replay/replay-events";
import { startReplayRun } from "../inbox/replay/replay-runs";
import { restoreArchivedEvents } from "../inbox/retention/restore-archived-events";
import { consoleAction } from "./console-action";

const idSchema = z.object({ id: z.number().int().positive() });

/** Replays one stored event (finance/admin): back to pending, dispatched, audited. */
export const replayEvent = consoleAction(idSchema, async ({ pool, boss, config }, { id }, { user, ip }) => {
  const result = await replayEvents(
    { pool, boss: await boss(), config },
    { ids: [id], statuses: [...REPLAYABLE_STATUSES] },
    { actor: user.email, ip },
  );
  return { replayed: result.total };
});

/** Brings an archived event's payload back from the archive (support and up), audited. */
export const restoreEvent = consoleAction(idSchema, async ({ pool, config }, { id }, { user, ip }) =>
  restoreArchivedEvents({ pool, config }, { ids: [id] }, { actor: user.email, ip }),
);

/**
 * Starts a bulk replay of the explorer's filter in the background. Above the threshold the user
 * must type the number of events, which is checked against a fresh count here.
 */
export const startBulkReplay = consoleAction(
  z.object({ filter: eventFilterSchema, confirmation: z.string().max(40).optional() }),
  async ({ pool, boss, config }, { filter, confirmation }, { user, ip }) => {
    const run = await startReplayRun(
      { pool, boss: await boss() },
      filter,
      { name: user.email, userId: user.id, ip },
      { confirmThreshold: config.replayConfirmThreshold, confirmation },
    );
    return { runId: run.id, expected: run.expected };
  },
);
