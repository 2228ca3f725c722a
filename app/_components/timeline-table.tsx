import Link from "next/link";
import type { TimelineEntry } from "@/lib/inbox/queries/get-event";
import { DisplayTime } from "./display-time.client";
import { StatusBadge } from "./status-badge";

/** Said of an event the gateway never delivered, and of the payments it moved. */
export function RecoveredLabel({ at }: { at: Date }) {
  return (
    <span className="muted" data-testid="recovered-label">
      {" "}
      recovered by reconciliation on <DisplayTime value={at} />
    </span>
  );
}

/** A payment's events in the gateway's order, with what each applied or why it was ignored. */
export function TimelineTable({ entries, currentId }: { entries: TimelineEntry[]; currentId?: number }) {
  return (
    <table className="data stack">
      <thead>
        <tr>
          <th>Occurred</th>
          <th>Received</th>
          <th>Type</th>
          <th>Outcome</th>
          <th>Effect</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr
            key={entry.id}
            aria-current={entry.id === currentId ? "true" : undefined}
            style={entry.id === currentId ? { fontWeight: 600 } : undefined}
          >
            <td data-label="Occurred">
              <DisplayTime value={entry.occurredAt} />
            </td>
            <td data-label="Received">
              <DisplayTime value={entry.receivedAt} />
            </td>
            <td data-label="Type">
              <Link href={`/events/${entry.id}`}>{entry.eventType}</Link>
              {entry.recovered ? <RecoveredLabel at={entry.receivedAt} /> : null}
            </td>
            <td data-label="Outcome">
              <StatusBadge status={entry.status} reason={entry.ignoredReason} />
            </td>
            <td data-label="Effect">
              {entry.applied ? (
                <span>
                  {entry.applied.fromStatus ?? "new"} → <strong>{entry.applied.toStatus}</strong>
                  {entry.applied.source === "refetch" ? <span className="muted"> (refetched)</span> : null}
                </span>
              ) : (
                <span className="muted">none</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
