import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { currentUser } from "@/app/_server/session";
import { PAGE_ACCESS, type PageRoute } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { NavLinks } from "./nav-links.client";
import { SignOutButton } from "./sign-out-button.client";

const NAV: { href: PageRoute; label: string }[] = [
  { href: "/", label: "Overview" },
  { href: "/events", label: "Events" },
  { href: "/payments", label: "Payments" },
  { href: "/signatures", label: "Signatures" },
  { href: "/users", label: "Users" },
  { href: "/audit", label: "Audit log" },
  { href: "/alerts", label: "Alerts" },
];

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/login");
  const links = NAV.filter((link) => can(user.role, PAGE_ACCESS[link.href]));
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">Webhook Inbox</div>
        <nav aria-label="Console">
          <NavLinks links={links} />
        </nav>
        <div className="who">
          <div>{user.email}</div>
          <div>
            role: <strong>{user.role}</strong>
          </div>
          <SignOutButton />
        </div>
      </aside>
      <main className="content" id="content">
        {children}
      </main>
    </div>
  );
}
