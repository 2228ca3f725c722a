import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { listDestinationSummaries } from "@/lib/destinations/destination-stats";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { PAYMENT_STATUSES } from "@/lib/payments/state-machine";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { DestinationsManager, type DestinationRow } from "./destinations-manager.client";

export const metadata: Metadata = { title: "Destinations" };
export const dynamic = "force-dynamic";

export default async function DestinationsPage() {
  await requirePagePermission(PAGE_ACCESS["/destinations"]);
  const summaries = await listDestinationSummaries(webRuntime().pool);
  // An explicit view for the client: no secret, dates as strings.
  const rows: DestinationRow[] = summaries.map((summary) => ({
    id: summary.id,
    name: summary.name,
    url: summary.url,
    providers: summary.providers,
    statuses: summary.statuses,
    enabled: summary.enabled,
    disabledReason: summary.disabledReason,
    fromConfig: summary.fromConfig,
    breakerOpenUntil: summary.breakerOpenUntil?.toISOString() ?? null,
    successRateLastHour: summary.successRateLastHour,
    p95LatencyMsLastHour: summary.p95LatencyMsLastHour,
    oldestUndeliveredAt: summary.oldestUndeliveredAt?.toISOString() ?? null,
    pending: summary.pending,
    dead: summary.dead,
  }));
  return (
    <>
      <h1>Destinations</h1>
      <p className="muted">
        Payment changes pushed to your application as signed Standard Webhooks, each payment&apos;s versions in order. How to verify them:
        docs/host-integration.md.
      </p>
      <DestinationsManager destinations={rows} providers={[...PROVIDER_NAMES]} statuses={[...PAYMENT_STATUSES]} />
    </>
  );
}
