import type { Metadata } from "next";
import Link from "next/link";
import { requirePageAccess } from "@/app/_server/session";
import { getDestinationsView } from "@/lib/console/get-destinations-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { DestinationsManager } from "./destinations-manager.client";

export const metadata: Metadata = { title: "Destinations" };
export const dynamic = "force-dynamic";

export default async function DestinationsPage() {
  await requirePageAccess("/destinations");
  const view = await getDestinationsView(webRuntime().pool);
  return (
    <>
      <h1>Destinations</h1>
      <p className="muted">
        Payment changes pushed to your application as signed Standard Webhooks, each payment&apos;s versions in order. How to verify them:{" "}
        <Link href="/docs/host-integration">docs/host-integration.md</Link>.
      </p>
      <DestinationsManager destinations={view.destinations} providers={view.providers} statuses={view.statuses} />
    </>
  );
}
