import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { destinationTableRow, listDestinationSummaries } from "@/lib/destinations/destination-stats";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { PAYMENT_STATUSES } from "@/lib/payments/state-machine";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { DestinationsManager } from "./destinations-manager.client";

export const metadata: Metadata = { title: "Destinations" };
export const dynamic = "force-dynamic";

export default async function DestinationsPage() {
  await requirePagePermission(PAGE_ACCESS["/destinations"]);
  const summaries = await listDestinationSummaries(webRuntime().pool);
  const rows = summaries.map(destinationTableRow);
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
