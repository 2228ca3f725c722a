import Link from "next/link";
import type { BacklogSummary } from "@/lib/inbox/queries/inbox-stats";
import type { QueueDepth } from "@/lib/queue/boss";

function age(seconds: number | null): string {
  if (seconds === null) return "none";
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function Card({ value, label, href }: { value: string | number; label: string; href?: string }) {
  const body = (
    <>
      <div className="value">{value}</div>
      <div className="label">{label}</div>
    </>
  );
  return href ? (
    <Link className="stat" href={href}>
      {body}
    </Link>
  ) : (
    <div className="stat">{body}</div>
  );
}

/** The backlog at a glance; each card links to the list it counts. */
export function StatCards({ backlog, queue }: { backlog: BacklogSummary; queue: QueueDepth | null }) {
  return (
    <div className="stat-grid">
      <Card value={backlog.pending} label="pending events" href="/events?status=pending" />
      <Card value={age(backlog.oldestPendingSeconds)} label="oldest pending" href="/events?status=pending&sort=received_asc" />
      <Card value={queue ? queue.ready + queue.deferred : "?"} label="queue depth (ready + scheduled retries)" />
      <Card value={queue ? queue.active : "?"} label="jobs running" />
      <Card value={backlog.failed} label="failed events" href="/events?status=failed" />
    </div>
  );
}
