import type { Metadata } from "next";
import { requirePageAccess } from "@/app/_server/session";
import { getAccountView } from "@/lib/console/get-account-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { AccountSettings } from "./account-settings.client";

export const metadata: Metadata = { title: "Your account" };
export const dynamic = "force-dynamic";

export default async function AccountPage() {
  const me = await requirePageAccess("/account");
  const view = await getAccountView(webRuntime(), me);
  return (
    <>
      <h1>Your account</h1>
      <p className="muted">
        {view.email} · role: {view.role}
      </p>
      <AccountSettings view={view} />
    </>
  );
}
