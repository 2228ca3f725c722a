import type { Metadata } from "next";
import { requirePageAccess } from "@/app/_server/session";
import { getUsersView } from "@/lib/console/get-users-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { UsersManager } from "./users-manager.client";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const me = await requirePageAccess("/users");
  const view = await getUsersView(webRuntime().prisma);
  return (
    <>
      <h1>Users</h1>
      <p className="muted">
        viewer: reads, customer data masked · support: reads everything, signature debugger · finance: + replay · admin: + users and the
        audit log.
      </p>
      <UsersManager users={JSON.parse(JSON.stringify(view.users))} roles={[...view.roles]} me={me.email} />
    </>
  );
}
