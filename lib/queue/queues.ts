import { z } from "zod";
import { PROVIDER_NAMES } from "../providers/registry";

/**
 * The queues that rooms below lib/jobs send to, and their jobs' data: ingest, the sweeper, replay
 * and registration dispatch to `webhooks`; a console replay run is enqueued to `replays` in the
 * transaction that records it; a console reconciliation to `reconcile-requests`. Their definitions (lib/jobs/definitions) take name and schema from
 * here; every other queue is named by its definition alone.
 */
export const QUEUES = {
  /** One job per inbox event to process. Singleton per resource: one active job per payment. */
  webhooks: "webhooks",
  /** Bulk replays started from the console (one job per replay run). */
  replays: "replays",
  /** A reconciliation preview or run asked for in the console, done by a worker (its result is the job's output). */
  reconcileRequests: "reconcile-requests",
  /** A data subject's erasure (lib/erasure), one job per erasure, enqueued with the row that records it. */
  erasures: "privacy-erasures",
} as const;

export const webhookJobSchema = z.object({
  inboxId: z.number().int().positive(),
  /**
   * The event's received_at as exact text (microseconds kept): the inbox is partitioned by it, so
   * the worker's statements read one partition. Absent on jobs enqueued by older versions.
   */
  receivedAt: z.string().max(40).optional(),
});
export type WebhookJob = z.infer<typeof webhookJobSchema>;

export const replayJobSchema = z.object({ runId: z.number().int().positive() });

export const erasureJobSchema = z.object({ erasureId: z.number().int().positive() });

export const reconcileRequestSchema = z.object({
  provider: z.enum(PROVIDER_NAMES),
  /** The gateway account (unset: the default account). */
  account: z.string().min(1).max(200).optional(),
  since: z.coerce.date().optional(),
  until: z.coerce.date().optional(),
  dryRun: z.boolean(),
  actor: z.string(),
});
export type ReconcileRequestJob = z.infer<typeof reconcileRequestSchema>;

/**
 * The key that serializes processing: every event of one payment shares it, so pg-boss runs at most
 * one of them at a time across all workers (the row locks in the handler are the guarantee; this
 * keeps workers from queueing up on them). Events without a resource serialize on their own id.
 */
export function serializationKey(provider: string, resourceId: string | null, eventId: string): string {
  return resourceId ? `${provider}:${resourceId}` : `${provider}:event:${eventId}`;
}
