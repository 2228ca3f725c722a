"use client";

import { useSyncExternalStore } from "react";
import { DEFAULT_DISPLAY_ZONE, DISPLAY_ZONE_COOKIE } from "@/lib/time/format-time";

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Chooses the zone the console writes times in: UTC (default) or the browser's own, kept in a cookie. */
export function ZonePicker({ zone }: { zone: string }) {
  // The browser's zone is only known in the browser: the server renders the list without it.
  const local = useSyncExternalStore(
    () => () => undefined,
    browserZone,
    () => null,
  );
  const choices = [...new Set([DEFAULT_DISPLAY_ZONE, zone, ...(local ? [local] : [])])];
  return (
    <label className="zone-picker">
      Times in
      <select
        value={zone}
        onChange={(event) => {
          document.cookie = `${DISPLAY_ZONE_COOKIE}=${event.target.value}; path=/; max-age=31536000; samesite=lax`;
          // A full reload: every time on the page, client-rendered ones included, is written again.
          window.location.reload();
        }}
      >
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice === local && choice !== DEFAULT_DISPLAY_ZONE ? `${choice} (this browser)` : choice}
          </option>
        ))}
      </select>
    </label>
  );
}
