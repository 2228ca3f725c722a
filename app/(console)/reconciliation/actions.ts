"use server";

import { z } from "zod";
import { runAction, type ActionResult } from "@/app/_server/action";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { runReconciliation, type ReconcileResult } from "@/lib/reconcile/run-reconciliation";
import { webRuntime } from "@/lib/runtime/web-runtime";

const optionalTime = z.iso
  .datetime({ offset: true })
  .optional()
  .transform((value) => (value ? new Date(value) : undefined));

const reconcileSchema = z
  .object({ provider: z.enum(PROVIDER_NAMES), since: optionalTime, until: optionalTime, dryRun: z.boolean() })
  .refine((input) => !input.until || input.since, { message: "until needs since" });

/** A preview (dry run: nothing written) or a run of one gateway's reconciliation (finance and up), audited. */
export async function reconcileGateway(input: z.input<typeof reconcileSchema>): Promise<ActionResult<ReconcileResult>> {
  return runAction("reconcileGateway", reconcileSchema, input, async ({ provider, since, until, dryRun }, { user }) => {
    const { pool, config, boss, gateways } = webRuntime();
    return runReconciliation(
      { pool, boss: await boss(), config, gateways },
      { provider, since, until, dryRun, trigger: "console", actor: user.email },
    );
  });
}
