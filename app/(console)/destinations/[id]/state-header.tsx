import { DisplayTime } from "@/app/_components/display-time.client";
import type { DestinationView } from "@/lib/console/get-destination-view";
import { formatAge } from "@/lib/time/format-time";

const TONES: Record<DestinationView["state"]["condition"], string> = {
  healthy: "ok",
  retrying: "warn",
  circuit_open: "bad",
  paused: "warn",
  disabled: "bad",
};

/** Where the destination stands, first on its page: state, last error, the circuit's times, backlog. */
export function StateHeader({ state }: { state: DestinationView["state"] }) {
  const ageSeconds = state.oldestUndeliveredAt ? (state.now.getTime() - state.oldestUndeliveredAt.getTime()) / 1000 : null;
  return (
    <section className={`banner ${TONES[state.condition]}`} aria-label="Destination state" data-testid="destination-state">
      <dl className="kv">
        <dt>State</dt>
        <dd data-testid="destination-condition">
          <strong>{state.label}</strong>
          {state.disabledReason ? ` (${state.disabledReason})` : null}
          {state.paused ? (
            <>
              {" "}
              by {state.paused.by} since <DisplayTime value={state.paused.at} now={state.now} />
            </>
          ) : null}
          {state.condition === "retrying" ? ` (${state.consecutiveFailures} failed in a row)` : null}
        </dd>
        <dt>Last error</dt>
        <dd data-testid="destination-last-error">
          {state.lastError ? (
            <>
              {state.lastError.statusCode === null ? state.lastError.reason : `${state.lastError.statusCode} ${state.lastError.reason}`}{" "}
              <span className="muted">
                (<DisplayTime value={state.lastError.at} now={state.now} />)
              </span>
            </>
          ) : (
            "none"
          )}
        </dd>
        {state.circuit ? (
          <>
            <dt>Circuit opened</dt>
            <dd>
              <DisplayTime value={state.circuit.openedAt} now={state.now} /> after {state.consecutiveFailures} failures in a row
            </dd>
            <dt>Next probe</dt>
            <dd data-testid="destination-next-probe">
              {state.circuit.probing ? (
                "a probe is being sent now"
              ) : state.circuit.probesAt ? (
                <DisplayTime value={state.circuit.probesAt} now={state.now} />
              ) : state.condition === "circuit_open" ? (
                "due now, with the worker's next round"
              ) : (
                "when the destination sends again"
              )}
            </dd>
          </>
        ) : null}
        <dt>Undelivered</dt>
        <dd data-testid="destination-undelivered">
          {state.undelivered.toLocaleString("en-US")} waiting{ageSeconds !== null ? `, the oldest for ${formatAge(ageSeconds)}` : null}
        </dd>
      </dl>
    </section>
  );
}
