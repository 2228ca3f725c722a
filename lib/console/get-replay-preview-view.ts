import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { EventFilter } from "../inbox/queries/event-filter";
import { previewReplayEffects, type EffectOutcome, type ReplayEffects } from "../inbox/replay/preview-replay-effects";
import { previewReplay, replayable } from "../inbox/replay/replay-events";
import { confirmationRequired } from "../inbox/replay/replay-runs";

/** What the bulk-replay page shows before anything runs: how many events, of which providers, and the dry run. */
export type ReplayPreviewView = ReplayEffects & {
  /** The statuses the replay takes ("failed or ignored" unless the filter names others). */
  statuses: string;
  total: number;
  /** The count as said: "more than N" when counting stopped at its cap. */
  count: string;
  /** Events per gateway ("<provider>: 3, <provider>: 1"), or "none". */
  providers: string;
  needsConfirmation: boolean;
  /** The dry-run payments by what the replay does to them, the page's summary above the rows. */
  outcomes: Record<EffectOutcome, number>;
};

function countOutcomes(dryRun: ReplayEffects): Record<EffectOutcome, number> {
  const outcomes: Record<EffectOutcome, number> = { changes: 0, no_change: 0, at_replay: 0, blocked: 0 };
  for (const effect of dryRun.effects) outcomes[effect.outcome] += 1;
  return outcomes;
}

/** The preview of replaying the events `filter` matches (restricted to replayable statuses). */
export async function getReplayPreviewView(pool: Pool, config: AppConfig, filter: EventFilter): Promise<ReplayPreviewView> {
  const scoped = replayable(filter);
  const [preview, dryRun] = await Promise.all([previewReplay(pool, filter), previewReplayEffects(pool, config, scoped)]);
  return {
    ...dryRun,
    statuses: (scoped.statuses ?? []).join(" or "),
    total: preview.total,
    count: preview.atLeast ? `more than ${preview.total}` : String(preview.total),
    providers:
      Object.entries(preview.byProvider)
        .map(([provider, count]) => `${provider}: ${count}`)
        .join(", ") || "none",
    needsConfirmation: confirmationRequired(preview.total, config.replayConfirmThreshold),
    outcomes: countOutcomes(dryRun),
  };
}
