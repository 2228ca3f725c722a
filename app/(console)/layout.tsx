import Link from "next/link";
import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { DisplayZoneProvider } from "@/app/_components/display-time.client";
import { displayZone } from "@/app/_server/display-zone";
import { currentUser } from "@/app/_server/session";
import { heldAtAccount } from "@/lib/console/get-account-view";
import { getLayoutView } from "@/lib/console/get-layout-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { NavLinks } from "./nav-links.client";
import { ReadTargetNote } from "./read-target-note";
import { SearchShortcut } from "./search-shortcut.client";
import { Sidebar } from "./sidebar.client";
import { SignOutButton } from "./sign-out-button.client";
import { ZonePicker } from "./zone-picker.client";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/login");
  const zone = await displayZone();
  const view = await getLayoutView(webRuntime().reads, user.role);
  // Held at the account page (a generated password, a required enrolment): no way elsewhere to show.
  const held = heldAtAccount(webRuntime().config, user);
  return (
    <DisplayZoneProvider zone={zone}>
      <div className="shell">
        <a className="skip-link" href="#content">
          Skip to content
        </a>
        <Sidebar>
          <nav aria-label="Console">
            <NavLinks links={held ? [] : view.links} />
          </nav>
          <div className="who">
            <ZonePicker zone={zone} />
            <div>
              <Link href="/account" title="Your account: password, two-step sign-in, sessions">
                {user.email}
              </Link>
            </div>
            <div>
              role: <strong>{user.role}</strong>
            </div>
            <SignOutButton />
            <ReadTargetNote readTarget={view.readTarget} />
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
