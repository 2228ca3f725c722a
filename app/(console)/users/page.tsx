import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { ROLES } from "@/lib/auth/permissions";
import { listUsers } from "@/lib/auth/users";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { UsersManager } from "./users-manager.client";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const me = await requirePagePermission(PAGE_ACCESS["/users"]);
  const users = await listUsers(webRuntime().prisma);
  return (
    <>
      <h1>Users</h1>
      <p className="muted">
        viewer: reads, customer data masked · support: reads everything, signature debugger · finance: + replay · admin: + users and the
        audit log.
      </p>
      <UsersManager users={JSON.parse(JSON.stringify(users))} roles={[...ROLES]} me={me.email} />
    </>
  );
}
