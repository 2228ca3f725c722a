import Link from "next/link";
import type { OverviewView } from "@/lib/console/get-overview-view";

function age(seconds: number | null): string {
  if (seconds === null) return "none";
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function Card({ value, label, href, tone }: { value: string | number; label: string; href: string; tone?: "bad" | "warn" }) {
  return (
    <Link className={`stat${tone ? ` ${tone}` : ""}`} href={href}>
      <div className="value">{value}</div>
      <div className="label">{label}</div>
    </Link>
  );
}

/** The backlog and the workers at a glance; each card links to the list it counts. */
export function StatCards({
  backlog,
  workersAlive,
  flagged,
}: {
  backlog: OverviewView["backlog"];
  workersAlive: number;
  flagged: boolean;
}) {
  return (
    <div className="stat-grid">
      <Card value={backlog.pending} label="pending events" href="/events?status=pending" tone={flagged ? "warn" : undefined} />
      <Card
        value={age(backlog.oldestPendingSeconds)}
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
    </div>
  );
}
