import { fromLocalTime, offsetOf, wallClock } from "../canonical/event-time";

// How the console writes a time: in one explicit zone, with the zone named, the same on the server
// and in the browser (composed from parts, so no locale default or ICU wording leaks in).

export const DEFAULT_DISPLAY_ZONE = "UTC";
/** The cookie holding a viewer's chosen display zone (an IANA name), read by the server. */
export const DISPLAY_ZONE_COOKIE = "console_tz";

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export type ZonedParts = { date: string; time: string; offsetMinutes: number };

/** The wall-clock date and time of `instant` in `zone`, and the zone's offset from UTC then. */
export function zonedParts(instant: Date, zone: string): ZonedParts {
  const clock = wallClock(instant.getTime(), zone);
  const pad = (value: number) => String(value).padStart(2, "0");
  return {
    date: `${clock.year}-${pad(clock.month)}-${pad(clock.day)}`,
    time: `${pad(clock.hour)}:${pad(clock.minute)}:${pad(clock.second)}`,
    offsetMinutes: Math.round(offsetOf(clock, instant.getTime()) / 60_000),
  };
}

/** "UTC", or the offset in effect ("UTC-03:00", "UTC+05:30"). */
export function zoneLabel(offsetMinutes: number): string {
  if (offsetMinutes === 0) return "UTC";
  const sign = offsetMinutes < 0 ? "-" : "+";
  const absolute = Math.abs(offsetMinutes);
  return `UTC${sign}${String(Math.floor(absolute / 60)).padStart(2, "0")}:${String(absolute % 60).padStart(2, "0")}`;
}

/** "2026-12-01 19:01:09 UTC" (or without seconds / without the date). */
export function formatTime(instant: Date, zone: string, options: { seconds?: boolean; date?: boolean } = {}): string {
  const parts = zonedParts(instant, zone);
  const time = options.seconds === false ? parts.time.slice(0, 5) : parts.time;
  return `${options.date === false ? "" : `${parts.date} `}${time} ${zoneLabel(parts.offsetMinutes)}`;
}

/** "just now", "45 s ago", "3 min ago", "5 h ago", "2 d ago" (or "in 3 min" for the future), against `now`. */
export function formatRelative(instant: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - instant.getTime()) / 1000);
  const absolute = Math.abs(seconds);
  if (absolute < 10) return "just now";
  const amount =
    absolute < 60
      ? `${absolute} s`
      : absolute < 3600
        ? `${Math.floor(absolute / 60)} min`
        : absolute < 172_800
          ? `${Math.floor(absolute / 3600)} h`
          : `${Math.floor(absolute / 86_400)} d`;
  return seconds > 0 ? `${amount} ago` : `in ${amount}`;
}

/** A waiting time: "45s", "12 min", "3.5 h"; "none" for null (nothing waits). */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return "none";
  if (seconds < 120) return `${Math.round(seconds)}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** An instant as a `datetime-local` value ("2026-12-01T16:01") on `zone`'s wall clock. */
export function toZonedInput(instant: Date, zone: string): string {
  const parts = zonedParts(instant, zone);
  return `${parts.date}T${parts.time.slice(0, 5)}`;
}

/** A `datetime-local` value read on `zone`'s wall clock, as an instant (null when unreadable). */
export function fromZonedInput(value: string, zone: string): Date | null {
  const withSeconds = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00` : value;
  const time = fromLocalTime(withSeconds, zone);
  return time ? new Date(time.occurredAt) : null;
}
