"use client";

import { usePathname } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";

/**
 * The console's side navigation. On narrow screens it folds into a top bar with a Menu toggle
 * (closed again after each navigation); on wide ones it is always shown and the toggle is hidden.
 */
export function Sidebar({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return;
    const close = (event: KeyboardEvent) => event.key === "Escape" && setOpen(false);
    window.addEventListener("keydown", close);
    return () => window.removeEventListener("keydown", close);
  }, [open]);
  return (
    <aside className="sidebar" data-open={open ? "true" : "false"}>
      <div className="sidebar-top">
        <div className="brand">Webhook Inbox</div>
        <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="sidebar-body" onClick={() => setOpen(!open)}>
          Menu
        </button>
      </div>
      <div className="sidebar-body" id="sidebar-body">
        {children}
      </div>
    </aside>
  );
}
