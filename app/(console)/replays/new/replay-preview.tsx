import type { ReplayPreviewView } from "@/lib/console/get-replay-preview-view";
import { BreakdownTable, EffectsTable, SamplesTable } from "./replay-preview-tables.client";
import { plural } from "@/lib/text/words";

/** What the replay takes: its scope, the filter as the explorer had it, and the counts. */
export function ReplayScope({ view, filter }: { view: ReplayPreviewView; filter: string }) {
  return (
    <section className="panel" aria-labelledby="preview">
      <h2 id="preview">Preview</h2>
      <p>
        This replay puts back to <strong>pending</strong> and re-processes the stored events that match the explorer&apos;s filter and are{" "}
        <strong>{view.statuses}</strong>. It never re-ingests: the same stored bytes are processed again, and effects already applied to a
        payment are not applied twice.
      </p>
      <dl className="kv">
        <dt>Filter</dt>
        <dd>{filter}</dd>
        <dt>Events</dt>
        <dd>
          <strong data-testid="replay-preview-count">{view.count}</strong>
        </dd>
        <dt>Providers</dt>
        <dd data-testid="replay-preview-providers">{view.providers}</dd>
      </dl>
    </section>
  );
}

const OUTCOME_LABELS = [
  ["changes", "would change"],
  ["no_change", "no change"],
  ["at_replay", "decided at replay time"],
  ["blocked", "won't apply yet"],
] as const;

/** The dry run in counts of payments, read before the confirmation and the rows. */
export function ReplaySummary({ view }: { view: ReplayPreviewView }) {
  return (
    <section className="panel" aria-labelledby="summary">
      <h2 id="summary">Dry run</h2>
      <div className="stat-grid" data-testid="replay-summary">
        {OUTCOME_LABELS.filter(([outcome]) => outcome !== "blocked" || view.outcomes.blocked > 0).map(([outcome, label]) => (
          <div key={outcome} className="stat" data-outcome={outcome}>
            <div className="value">{view.outcomes[outcome]}</div>
            <div className="label">{label}</div>
          </div>
        ))}
      </div>
      <p className="muted">
        {view.paymentsSampled < view.total
          ? `Of the ${plural(view.paymentsSampled, "payment")} with the newest matching events. `
          : `Of the ${plural(view.paymentsSampled, "payment")} these events touch. `}
        {view.outcomes.at_replay > 0
          ? "Decided at replay time: the worker fetches the charge from the gateway then, so its effect can't be known now."
          : ""}
      </p>
    </section>
  );
}

/** The dry run: the matching events by kind, the effect on each payment, and a few of the events. */
export function ReplayDryRun({ view }: { view: ReplayPreviewView }) {
  return (
    <>
      <section className="panel" aria-labelledby="breakdown">
        <h2 id="breakdown">By provider, type and status</h2>
        <BreakdownTable rows={view.breakdown} />
        {view.breakdownCapped ? <p className="muted">Counted over the first matching events only.</p> : null}
      </section>
      <section className="panel" aria-labelledby="effects">
        <h2 id="effects">What it will do to each payment (dry run)</h2>
        <p className="muted">
          Computed by the worker&apos;s own parsing and decision code against each payment as it is now; nothing is written.
          {view.paymentsSampled < view.total
            ? ` Shown for the ${plural(view.paymentsSampled, "payment")} with the newest matching events.`
            : ""}
        </p>
        <EffectsTable rows={view.effects} />
      </section>
      <section className="panel" aria-labelledby="samples">
        <h2 id="samples">Sample events</h2>
        <SamplesTable rows={view.samples} />
      </section>
    </>
  );
}
