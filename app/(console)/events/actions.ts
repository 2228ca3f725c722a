"use server";

import type { z } from "zod";
import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/event-actions";

export async function replayEvent(input: z.input<typeof actions.replayEvent.schema>) {
  return runAction("replayEvent", actions.replayEvent, input);
}

export async function restoreEvent(input: z.input<typeof actions.restoreEvent.schema>) {
  return runAction("restoreEvent", actions.restoreEvent, input);
}

export async function startBulkReplay(input: z.input<typeof actions.startBulkReplay.schema>) {
  return runAction("startBulkReplay", actions.startBulkReplay, input);
}
