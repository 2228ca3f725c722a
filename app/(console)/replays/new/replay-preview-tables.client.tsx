"use client";

import Link from "next/link";
import { Breakable } from "@/app/_components/breakable";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { FullId } from "@/app/_components/full-id.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import type { ReplayPreviewView } from "@/lib/console/get-replay-preview-view";
import { statusLabel } from "@/lib/text/words";

type Breakdown = ReplayPreviewView["breakdown"][number];
type PaymentEffect = ReplayPreviewView["effects"][number];
type SampleEvent = ReplayPreviewView["samples"][number];

function EffectText({ effect }: { effect: PaymentEffect }) {
  if (effect.outcome === "at_replay" || effect.outcome === "blocked") return <span className="muted">{effect.note}</span>;
  if (effect.outcome === "no_change") return <span className="muted">no change</span>;
  const refundChanged = effect.fromRefunded !== effect.toRefunded && effect.fromRefunded !== null;
  return (
    <span>
      {statusLabel(effect.from ?? "new")} → <strong>{effect.to && statusLabel(effect.to)}</strong>
      {refundChanged ? (
        <span className="muted">
          {" "}
          (refunded <Money amount={effect.fromRefunded} currency={effect.currency} /> →{" "}
          <Money amount={effect.toRefunded} currency={effect.currency} />)
        </span>
      ) : null}
    </span>
  );
}

const breakdown = dataColumns<Breakdown>();
const breakdownColumns = breakdown.columns([
  breakdown.accessor("provider", { header: "Provider" }),
  breakdown.accessor("eventType", { header: "Type", cell: (info) => <Breakable text={info.getValue()} /> }),
  breakdown.accessor("status", { header: "Status now", cell: (info) => <StatusBadge status={info.getValue()} /> }),
  breakdown.accessor("events", { header: "Events", meta: { numeric: true } }),
]);

export function BreakdownTable({ rows }: { rows: Breakdown[] }) {
  return (
    <DataTable
      label="By provider, type and status"
      columns={breakdownColumns}
      rows={rows}
      rowKey={(row) => `${row.provider}-${row.eventType}-${row.status}`}
      empty="None."
    />
  );
}

const effect = dataColumns<PaymentEffect>();
const effectColumns = effect.columns([
  effect.accessor("chargeId", {
    header: "Payment",
    cell: (info) => (
      <>
        <span className="muted">{info.row.original.provider}</span>{" "}
        <FullId
          value={info.getValue()}
          label="charge"
          href={info.row.original.paymentId ? `/payments/${info.row.original.paymentId}` : null}
        />
      </>
    ),
  }),
  effect.accessor("events", { header: "Events", meta: { numeric: true } }),
  effect.accessor("to", { header: "Effect", cell: (info) => <EffectText effect={info.row.original} /> }),
  effect.accessor("toRefunded", {
    header: "Refunded after",
    meta: { numeric: true },
    cell: (info) => <Money amount={info.getValue()} currency={info.row.original.currency} />,
  }),
]);

export function EffectsTable({ rows }: { rows: PaymentEffect[] }) {
  return (
    <DataTable
      label="Effect on each payment"
      testId="replay-effects"
      columns={effectColumns}
      rows={rows}
      rowKey={(row) => `${row.provider}/${row.chargeId}`}
      rowProps={(row) => ({ "data-charge": row.chargeId, "data-to": row.to ?? "", "data-outcome": row.outcome })}
      empty="No payment is touched."
    />
  );
}

const sample = dataColumns<SampleEvent>();
const sampleColumns = sample.columns([
  sample.accessor("receivedAt", { header: "Received", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  sample.accessor("eventType", {
    header: "Event",
    cell: (info) => (
      <Link href={`/events/${info.row.original.id}`}>
        {info.row.original.provider} <Breakable text={info.getValue()} />
      </Link>
    ),
  }),
  sample.accessor("resourceId", { header: "Charge", cell: (info) => <FullId value={info.getValue()} label="charge" /> }),
  sample.accessor("status", { header: "Status now", cell: (info) => <StatusBadge status={info.getValue()} /> }),
]);

export function SamplesTable({ rows }: { rows: SampleEvent[] }) {
  return <DataTable label="Sample events" columns={sampleColumns} rows={rows} rowKey={(row) => String(row.id)} empty="None." />;
}
