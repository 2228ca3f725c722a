import { DisplayTime } from "@/app/_components/display-time.client";
import type { RunCounts, RunView } from "@/lib/reconcile/reconcile-runs";

const COUNTS: [string, keyof RunCounts][] = [
  ["Listed", "listed"],
  ["Missed events", "missingIngested"],
  ["Repaired", "repaired"],
  ["Stuck refetched", "stuckRefetched"],
  ["Errors", "errors"],
];

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
          {COUNTS.map(([label]) => (
            <th key={label} className="num">
              {label}
            </th>
          ))}
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
            {COUNTS.map(([label, field]) => (
              <td key={label} className="num" data-label={label}>
                {run[field]}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
