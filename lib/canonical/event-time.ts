import type { Precision } from "./charge-event";

export type ReportedTime = { occurredAt: string; precision: Precision };

/**
 * Unix seconds as an event time. A time outside what both a JS Date and PostgreSQL's timestamptz
 * hold (4713 BC .. 275760 AD) is a RangeError saying so, never an "Invalid time value" from deep inside.
 */
export function fromUnixSeconds(seconds: number): ReportedTime {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < -4712)
    throw new RangeError(`event time out of range: ${String(seconds).slice(0, 30)} seconds since 1970`);
  return { occurredAt: date.toISOString().replace(".000Z", "Z"), precision: "second" };
}

const ISO_WITH_ZONE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO-8601 time with an offset, kept with all its fractional digits (up to microseconds, which is
 * what PostgreSQL stores) and normalized to UTC. Returns null when the text is not such a time.
 */
export function fromIso(text: string): ReportedTime | null {
  const match = ISO_WITH_ZONE.exec(text);
  if (!match) return null;
  const [, wholeSeconds, fraction = "", zone] = match;
  const base = new Date(`${wholeSeconds}${zone}`);
  if (Number.isNaN(base.getTime())) return null;
  const digits = fraction.slice(0, 6);
  const precision: Precision = digits.length === 0 ? "second" : digits.length <= 3 ? "millisecond" : "microsecond";
  const utc = base.toISOString().slice(0, 19);
  return { occurredAt: digits ? `${utc}.${digits}Z` : `${utc}Z`, precision };
}

/**
 * A local wall-clock time with no zone ("2024-06-12 16:45:03", as some gateways send it),
 * interpreted in `timeZone`. Returns null when the text is not such a time.
 */
export function fromLocalTime(text: string, timeZone: string): ReportedTime | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // The zone's offset at that instant; computed twice so a time next to a DST change lands right.
  let utc = asUtc - zoneOffsetMs(asUtc, timeZone);
  utc = asUtc - zoneOffsetMs(utc, timeZone);
  return fromUnixSeconds(utc / 1000);
}

const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

export type WallClock = Record<"year" | "month" | "day" | "hour" | "minute" | "second", number>;

/** The wall-clock fields of an instant (ms) in a zone, from Intl parts (no locale wording). */
export function wallClock(instant: number, timeZone: string): WallClock {
  let format = wallClockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    wallClockFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: get("year"), month: get("month"), day: get("day"), hour: get("hour"), minute: get("minute"), second: get("second") };
}

/** The zone's offset from UTC (ms) at an instant, given its wall clock there. */
export function offsetOf(clock: WallClock, instant: number): number {
  return Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second) - Math.floor(instant / 1000) * 1000;
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  return offsetOf(wallClock(instant, timeZone), instant);
}

/** "YYYY-MM-DD HH:MM:SS" in a zone, no offset: what fromLocalTime reads (how those gateways write them). */
export function toLocalTime(instant: number, timeZone: string): string {
  const { year, month, day, hour, minute, second } = wallClock(instant, timeZone);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${year}-${two(month)}-${two(day)} ${two(hour)}:${two(minute)}:${two(second)}`;
}
