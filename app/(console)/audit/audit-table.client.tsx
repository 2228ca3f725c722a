"use client";

import Link from "next/link";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { AuditView } from "@/lib/console/get-audit-view";

type AuditRow = Extract<AuditView, { ok: true }>["rows"][number];

const plain = (value: unknown): string =>
  value === null || value === undefined ? "—" : typeof value === "object" ? JSON.stringify(value) : String(value);

/** An audit row's details as labelled lines (a replay's filter as conditions, its run as a link). */
function AuditDetails({ details }: { details: unknown }) {
  if (!details || typeof details !== "object") return <span className="muted">{plain(details)}</span>;
  const entries = Object.entries(details as Record<string, unknown>);
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="kv">
      {entries.map(([key, value]) => (
        <div key={key} style={{ display: "contents" }}>
          <dt>{key}</dt>
          <dd>
            {key === "runId" && typeof value === "number" ? (
              <Link href={`/replays/${value}`}>bulk run #{value}</Link>
            ) : value && typeof value === "object" && !Array.isArray(value) ? (
              Object.entries(value as Record<string, unknown>)
                .map(([name, inner]) => `${name}: ${plain(inner)}`)
                .join(" · ") || "—"
            ) : (
              plain(value)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

const column = dataColumns<AuditRow>();
const columns = column.columns([
  column.accessor("at", { header: "When", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("actor", { header: "Who" }),
  column.accessor("action", { header: "Action" }),
  column.accessor("ip", { header: "IP", meta: { mono: true } }),
  column.accessor("details", { header: "Details", cell: (info) => <AuditDetails details={info.getValue()} /> }),
]);

export function AuditTable({ rows, paging }: { rows: AuditRow[]; paging: DataTablePaging }) {
  return (
    <DataTable label="Audit log" columns={columns} rows={rows} rowKey={(row) => String(row.id)} empty="Nothing recorded." paging={paging} />
  );
}
