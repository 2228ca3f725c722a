"use server";

import { z } from "zod";
import { runAction, type ActionResult } from "@/app/_server/action";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { reconcileInWorker, type RequestedReconciliation } from "@/lib/jobs/definitions/reconcile-requests";
import { webRuntime } from "@/lib/runtime/web-runtime";

const optionalTime = z.iso
  .datetime({ offset: true })
  .optional()
  .transform((value) => (value ? new Date(value) : undefined));

const reconcileSchema = z
  .object({ provider: z.enum(PROVIDER_NAMES), since: optionalTime, until: optionalTime, dryRun: z.boolean() })
  .refine((input) => !input.until || input.since, { message: "until needs since" });

// How long the page waits for the worker's answer; past it, the run goes on and shows in the runs table.
const WAIT_MS = 120_000;

/**
 * A preview (dry run: nothing written) or a run of one gateway's reconciliation (finance and up),
 * audited, done by a worker: the web process never reads a gateway's pages.
 */
export async function reconcileGateway(input: z.input<typeof reconcileSchema>): Promise<ActionResult<RequestedReconciliation>> {
  return runAction("reconcileGateway", reconcileSchema, input, async ({ provider, since, until, dryRun }, { user }) => {
    const { boss } = webRuntime();
    return reconcileInWorker(await boss(), { provider, since, until, dryRun, actor: user.email }, WAIT_MS);
  });
}
