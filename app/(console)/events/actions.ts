"use server";

import { z } from "zod";
import { runAction, type ActionResult } from "@/app/_server/action";
import { eventFilterSchema } from "@/lib/inbox/queries/event-filter";
import { REPLAYABLE_STATUSES, replayEvents } from "@/lib/inbox/replay/replay-events";
import { restoreArchivedEvents } from "@/lib/inbox/retention/restore-archived-events";
import { startReplayRun } from "@/lib/inbox/replay/replay-runs";
import { webRuntime } from "@/lib/runtime/web-runtime";

async function deps() {
  const runtime = webRuntime();
  return { pool: runtime.pool, boss: await runtime.boss(), config: runtime.config };
}

/** Replays one stored event (finance/admin): back to pending, dispatched, audited. */
export async function replayEvent(input: { id: number }): Promise<ActionResult<{ replayed: number }>> {
  return runAction("replayEvent", z.object({ id: z.number().int().positive() }), input, async ({ id }, { user, ip }) => {
    const result = await replayEvents(await deps(), { ids: [id], statuses: [...REPLAYABLE_STATUSES] }, { actor: user.email, ip });
    return { replayed: result.total };
  });
}

/** Brings an archived event's payload back from the archive (support and up), audited. */
export async function restoreEvent(input: { id: number }): Promise<ActionResult<{ restored: number }>> {
  return runAction("restoreEvent", z.object({ id: z.number().int().positive() }), input, async ({ id }, { user, ip }) => {
    const { pool, config } = webRuntime();
    return restoreArchivedEvents({ pool, config }, { ids: [id] }, { actor: user.email, ip });
  });
}

const bulkSchema = z.object({ filter: eventFilterSchema, confirmation: z.string().max(40).optional() });

/**
 * Starts a bulk replay of the explorer's filter in the background. Above the threshold the user
 * must type the number of events, which is checked against a fresh count here.
 */
export async function startBulkReplay(input: z.input<typeof bulkSchema>): Promise<ActionResult<{ runId: number; expected: number }>> {
  return runAction("startBulkReplay", bulkSchema, input, async ({ filter, confirmation }, { user, ip }) => {
    const { pool, boss, config } = await deps();
    const run = await startReplayRun(
      { pool, boss },
      filter,
      { name: user.email, userId: user.id, ip },
      {
        confirmThreshold: config.replayConfirmThreshold,
        confirmation,
      },
    );
    return { runId: run.id, expected: run.expected };
  });
}
