import { z } from "zod";

/** Queue names and job schemas: the contract between the ingest path, the sweeper, replay and the worker. */
export const QUEUES = {
  /** One job per inbox event to process. Singleton per resource: one active job per payment. */
  webhooks: "webhooks",
  /** Scheduled: re-dispatch stale pending events. */
  sweeper: "sweeper",
  /** Bulk replays started from the console (one job per replay run). */
  replays: "replays",
  /** Scheduled: archive and purge the payloads of old settled events. */
  retention: "retention",
  /** Scheduled: evaluate alert conditions and deliver alerts. */
  alerts: "alerts",
  /** Scheduled: start the reconciliation runs that are due (each gateway on its own interval). */
  reconcile: "reconcile",
  /** Dead letters of `replays`: runs whose job ran out of retries (their worker kept dying). */
  replaysAbandoned: "replays-abandoned",
} as const;

export const webhookJobSchema = z.object({ inboxId: z.number().int().positive() });
export type WebhookJob = z.infer<typeof webhookJobSchema>;

export const replayJobSchema = z.object({ runId: z.number().int().positive() });

/**
 * The key that serializes processing: every event of one payment shares it, so pg-boss runs at most
 * one of them at a time across all workers (the row locks in the handler are the guarantee; this
 * keeps workers from queueing up on them). Events without a resource serialize on their own id.
 */
export function serializationKey(provider: string, resourceId: string | null, eventId: string): string {
  return resourceId ? `${provider}:${resourceId}` : `${provider}:event:${eventId}`;
}
