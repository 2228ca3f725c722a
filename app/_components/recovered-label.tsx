import { DisplayTime } from "./display-time.client";

/** Said of an event the gateway never sent, and of the payments it moved. */
export function RecoveredLabel({ at }: { at: Date }) {
  return (
    <span className="muted" data-testid="recovered-label">
      {" "}
      recovered by reconciliation on <DisplayTime value={at} />
    </span>
  );
}
