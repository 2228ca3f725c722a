import { z } from "zod";
import { PROVIDER_NAMES } from "../providers/registry";
import { runReconciliation, type Finding, type ReconcileResult } from "../reconcile/run-reconciliation";
import { consoleAction } from "./console-action";

export type { Finding, ReconcileResult };

const optionalTime = z.iso
  .datetime({ offset: true })
  .optional()
  .transform((value) => (value ? new Date(value) : undefined));

/** A preview (dry run: nothing written) or a run of one gateway's reconciliation (finance and up), audited. */
export const reconcileGateway = consoleAction(
  z
    .object({ provider: z.enum(PROVIDER_NAMES), since: optionalTime, until: optionalTime, dryRun: z.boolean() })
    .refine((input) => !input.until || input.since, { message: "until needs since" }),
  async ({ pool, config, boss, gateways }, { provider, since, until, dryRun }, { user }): Promise<ReconcileResult> =>
    runReconciliation(
      { pool, boss: await boss(), config, gateways },
      { provider, since, until, dryRun, trigger: "console", actor: user.email },
    ),
);
