import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { DisplayZoneProvider } from "@/app/_components/display-time.client";
import { displayZone } from "@/app/_server/display-zone";
import { currentUser } from "@/app/_server/session";
import { PAGE_ACCESS, type PageRoute } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { NavLinks } from "./nav-links.client";
import { ReadTargetNote } from "./read-target-note";
import { SearchShortcut } from "./search-shortcut.client";
import { Sidebar } from "./sidebar.client";
import { SignOutButton } from "./sign-out-button.client";
import { ZonePicker } from "./zone-picker.client";

const NAV: { href: PageRoute; label: string }[] = [
  { href: "/", label: "Overview" },
  { href: "/events", label: "Events" },
  { href: "/payments", label: "Payments" },
  { href: "/replays", label: "Replays" },
  { href: "/signatures", label: "Signatures" },
  { href: "/users", label: "Users" },
  { href: "/audit", label: "Audit log" },
  { href: "/alerts", label: "Alerts" },
  { href: "/reconciliation", label: "Reconciliation" },
  { href: "/destinations", label: "Destinations" },
];

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/login");
  const zone = await displayZone();
  const links = NAV.filter((link) => can(user.role, PAGE_ACCESS[link.href]));
  return (
    <DisplayZoneProvider zone={zone}>
      <div className="shell">
        <a className="skip-link" href="#content">
          Skip to content
        </a>
        <Sidebar>
          <nav aria-label="Console">
            <NavLinks links={links} />
          </nav>
          <div className="who">
            <ZonePicker zone={zone} />
            <div>{user.email}</div>
            <div>
              role: <strong>{user.role}</strong>
            </div>
            <SignOutButton />
            <ReadTargetNote />
          </div>
        </Sidebar>
        <main className="content" id="content">
          {children}
        </main>
      </div>
      <SearchShortcut />
    </DisplayZoneProvider>
  );
}
