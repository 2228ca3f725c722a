import { DisplayTime } from "@/app/_components/display-time.client";
import type { RunView } from "@/lib/reconcile/reconcile-runs";

/** The latest runs (schedule, CLI, console), newest first. */
export function RunsTable({ runs }: { runs: RunView[] }) {
  if (runs.length === 0) return <p className="panel muted">No runs yet.</p>;
  return (
    <table className="data stack" aria-label="Runs">
      <thead>
        <tr>
          <th>Started</th>
          <th>Gateway</th>
          <th>By</th>
          <th>Window</th>
          <th>Status</th>
          <th className="num">Listed</th>
          <th className="num">Missed events</th>
          <th className="num">Repaired</th>
          <th className="num">Stuck refetched</th>
          <th className="num">Errors</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-testid="reconcile-run">
            <td data-label="Started">
              <DisplayTime value={run.startedAt} />
            </td>
            <td data-label="Gateway">{run.provider}</td>
            <td data-label="By">{run.actor ?? run.trigger}</td>
            <td data-label="Window">
              <DisplayTime value={run.windowStart} /> – <DisplayTime value={run.windowEnd} />
            </td>
            <td data-label="Status" title={run.lastError ?? undefined}>
              {run.status}
            </td>
            <td className="num" data-label="Listed">
              {run.listed}
            </td>
            <td className="num" data-label="Missed events">
              {run.missingIngested}
            </td>
            <td className="num" data-label="Repaired">
              {run.repaired}
            </td>
            <td className="num" data-label="Stuck refetched">
              {run.stuckRefetched}
            </td>
            <td className="num" data-label="Errors">
              {run.errors}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
