import { z } from "zod";
import { PROVIDER_NAMES } from "../providers/registry";
import { reconcileInWorker, type RequestedReconciliation } from "../reconcile/request-reconciliation";
import type { Finding } from "../reconcile/run-reconciliation";
import { consoleAction } from "./console-action";

export type { Finding, RequestedReconciliation };

// How long the page waits for the worker's answer; past it, the run goes on and shows in the runs table.
const WAIT_MS = 120_000;

const optionalTime = z.iso
  .datetime({ offset: true })
  .optional()
  .transform((value) => (value ? new Date(value) : undefined));

/**
 * A preview (dry run: nothing written) or a run of one gateway's reconciliation (finance and up),
 * audited, done by a worker: the web process never reads a gateway's pages.
 */
export const reconcileGateway = consoleAction(
  z
    .object({
      provider: z.enum(PROVIDER_NAMES),
      account: z.string().trim().min(1).max(200).optional(),
      since: optionalTime,
      until: optionalTime,
      dryRun: z.boolean(),
    })
    .refine((input) => !input.until || input.since, { message: "until needs since" }),
  async ({ boss }, { provider, account, since, until, dryRun }, { user }): Promise<RequestedReconciliation> =>
    reconcileInWorker(await boss(), { provider, account, since, until, dryRun, actor: user.email }, WAIT_MS),
);
