"use client";

import { createContext, useContext, type ReactNode } from "react";
import { DEFAULT_DISPLAY_ZONE, formatRelative, formatTime } from "@/lib/time/format-time";

const DisplayZone = createContext(DEFAULT_DISPLAY_ZONE);

/** The zone every time in the console is written in (the server reads it from a cookie). */
export function DisplayZoneProvider({ zone, children }: { zone: string; children: ReactNode }) {
  return <DisplayZone.Provider value={zone}>{children}</DisplayZone.Provider>;
}

export function useDisplayZone(): string {
  return useContext(DisplayZone);
}

/**
 * A time in the console's display zone, zone named ("2026-12-01 19:01:09 UTC"). The zone comes from
 * the server, so a full load and an in-app navigation write the same text. With `now` (the server's
 * clock when the page was rendered) it adds how long ago, for lists people scan.
 */
export function DisplayTime({
  value,
  withSeconds = true,
  now,
}: {
  value: string | Date | null | undefined;
  withSeconds?: boolean;
  now?: string | Date;
}) {
  const zone = useDisplayZone();
  if (!value) return <span className="muted">—</span>;
  const date = typeof value === "string" ? new Date(value) : value;
  const text = formatTime(date, zone, { seconds: withSeconds });
  const utc = formatTime(date, "UTC");
  if (!now) {
    return (
      <time dateTime={date.toISOString()} title={utc}>
        {text}
      </time>
    );
  }
  return (
    <span className="when">
      <span className="ago">{formatRelative(date, typeof now === "string" ? new Date(now) : now)}</span>{" "}
      <time dateTime={date.toISOString()} title={utc}>
        {text}
      </time>
    </span>
  );
}
