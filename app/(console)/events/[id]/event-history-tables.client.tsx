"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { EventPageView } from "@/lib/console/get-event-view";

type AttemptRow = EventPageView["attempts"][number];
type ReplayHistoryEntry = EventPageView["replays"][number];

const attempt = dataColumns<AttemptRow>();
const attemptColumns = attempt.columns([
  attempt.accessor("attempt", { header: "#", meta: { numeric: true } }),
  attempt.accessor("startedAt", { header: "Started", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  attempt.accessor("durationMs", {
    header: "Duration",
    meta: { numeric: true },
    cell: (info) => (info.getValue() === null ? "—" : `${info.getValue()} ms`),
  }),
  attempt.accessor("outcome", { header: "Outcome", cell: (info) => <StatusBadge status={info.getValue()} /> }),
  attempt.accessor("worker", { header: "Worker", meta: { mono: true } }),
  attempt.accessor("error", { header: "Error", meta: { mono: true } }),
]);

export function AttemptsTable({ attempts }: { attempts: AttemptRow[] }) {
  return (
    <DataTable
      label="Processing attempts"
      columns={attemptColumns}
      rows={attempts}
      rowKey={(row) => `${row.attempt}-${new Date(row.startedAt).toISOString()}`}
      empty="Not attempted yet."
    />
  );
}

const replay = dataColumns<ReplayHistoryEntry>();

function replayColumns(now: string) {
  return replay.columns([
    replay.accessor("replayedAt", { header: "When", cell: (info) => <DisplayTime value={info.getValue()} now={now} /> }),
    replay.accessor("actor", { header: "Who" }),
    replay.accessor("previousStatus", { header: "Was", cell: (info) => <StatusBadge status={info.getValue()} /> }),
    replay.accessor("runId", {
      header: "Run",
      cell: (info) =>
        info.getValue() ? <Link href={`/replays/${info.getValue()}`}>bulk run #{info.getValue()}</Link> : "this event alone",
    }),
  ]);
}

export function ReplayHistoryTable({ replays, now }: { replays: ReplayHistoryEntry[]; now: string }) {
  return (
    <DataTable
      label="Replay history"
      testId="replay-history"
      columns={replayColumns(now)}
      rows={replays}
      rowKey={(row) => `${new Date(row.replayedAt).toISOString()}-${row.runId}`}
      empty="Never replayed."
    />
  );
}
