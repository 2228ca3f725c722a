import Link from "next/link";
import type { OverviewView } from "@/lib/console/get-overview-view";
import { formatAge } from "@/lib/time/format-time";

function Card({ value, label, href, tone }: { value: string | number; label: string; href: string; tone?: "bad" | "warn" }) {
  return (
    <Link className={`stat${tone ? ` ${tone}` : ""}`} href={href}>
      <div className="value">{value}</div>
      <div className="label">{label}</div>
    </Link>
  );
}

/** The backlog, the workers and the pushes to destinations at a glance; each card links to the list it counts. */
export function StatCards({
  backlog,
  workersAlive,
  flagged,
  deliveries,
}: {
  backlog: OverviewView["backlog"];
  workersAlive: number;
  flagged: boolean;
  deliveries: OverviewView["deliveries"];
}) {
  const pushTone = deliveries.failing.length > 0 ? "bad" : undefined;
  return (
    <div className="stat-grid">
      <Card value={backlog.pending} label="pending events" href="/events?status=pending" tone={flagged ? "warn" : undefined} />
      <Card
        value={formatAge(backlog.oldestPendingSeconds)}
        label="oldest pending"
        href="/events?status=pending&sort=received_asc"
        tone={flagged ? "warn" : undefined}
      />
      <Card
        value={workersAlive}
        label="workers alive"
        href="#workers"
        tone={workersAlive === 0 && backlog.pending > 0 ? "bad" : undefined}
      />
      <Card value={backlog.failed} label="failed events" href="/events?status=failed" tone={backlog.failed > 0 ? "bad" : undefined} />
      <Card value={deliveries.undelivered} label="undelivered pushes" href="/destinations" tone={pushTone} />
      <Card value={formatAge(deliveries.oldestUndeliveredSeconds)} label="oldest undelivered push" href="/destinations" tone={pushTone} />
    </div>
  );
}
