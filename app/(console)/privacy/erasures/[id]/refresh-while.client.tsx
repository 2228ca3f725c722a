"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Reloads the page's server view every second while `active` (an erasure still queued or running). */
export function RefreshWhile({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), 1000);
    return () => clearInterval(timer);
  }, [active, router]);
  return null;
}
