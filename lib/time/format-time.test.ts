import { describe, expect, it } from "vitest";
import { formatAge, formatRelative, formatTime, fromZonedInput, isTimeZone, toZonedInput, zoneLabel } from "./format-time";

describe("formatTime", () => {
  const instant = new Date("2026-12-01T19:01:09.876Z");

  it("writes UTC with its label", () => {
    expect(formatTime(instant, "UTC")).toBe("2026-12-01 19:01:09 UTC");
    expect(formatTime(instant, "UTC", { seconds: false })).toBe("2026-12-01 19:01 UTC");
    expect(formatTime(instant, "UTC", { date: false })).toBe("19:01:09 UTC");
  });

  it("writes another zone's wall clock with the offset in effect, across midnight and DST", () => {
    expect(formatTime(instant, "America/Sao_Paulo")).toBe("2026-12-01 16:01:09 UTC-03:00");
    expect(formatTime(new Date("2026-12-01T23:30:00Z"), "Asia/Kolkata")).toBe("2026-12-02 05:00:00 UTC+05:30");
    expect(formatTime(new Date("2026-07-01T12:00:00Z"), "Europe/Berlin")).toBe("2026-07-01 14:00:00 UTC+02:00");
    expect(formatTime(new Date("2026-01-01T12:00:00Z"), "Europe/Berlin")).toBe("2026-01-01 13:00:00 UTC+01:00");
  });

  it("labels offsets", () => {
    expect(zoneLabel(0)).toBe("UTC");
    expect(zoneLabel(-180)).toBe("UTC-03:00");
    expect(zoneLabel(345)).toBe("UTC+05:45");
  });

  it("knows real zones from typos", () => {
    expect(isTimeZone("America/Sao_Paulo")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });
});

describe("formatRelative", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const ago = (seconds: number) => formatRelative(new Date(now.getTime() - seconds * 1000), now);

  it("says how long ago, coarser as it gets older", () => {
    expect(ago(3)).toBe("just now");
    expect(ago(45)).toBe("45 s ago");
    expect(ago(200)).toBe("3 min ago");
    expect(ago(5 * 3600 + 10)).toBe("5 h ago");
    expect(ago(3 * 86_400)).toBe("3 d ago");
    expect(ago(-300)).toBe("in 5 min");
  });
});

describe("datetime-local values on a zone's wall clock", () => {
  it("round-trips through the zone, DST included", () => {
    for (const [zone, iso] of [
      ["UTC", "2026-12-01T19:01:00.000Z"],
      ["America/Sao_Paulo", "2026-12-01T19:01:00.000Z"],
      ["Europe/Berlin", "2026-07-01T12:30:00.000Z"],
      ["Asia/Kolkata", "2026-12-01T23:30:00.000Z"],
    ] as const) {
      const value = toZonedInput(new Date(iso), zone);
      expect(fromZonedInput(value, zone)?.toISOString()).toBe(iso);
    }
    expect(toZonedInput(new Date("2026-12-01T19:01:00Z"), "America/Sao_Paulo")).toBe("2026-12-01T16:01");
    expect(fromZonedInput("nonsense", "UTC")).toBeNull();
  });
});

describe("formatAge", () => {
  it.each([
    [null, "none"],
    [45, "45s"],
    [119.6, "120s"],
    [720, "12 min"],
    [12_600, "3.5 h"],
  ])("%s s -> %s", (seconds, text) => {
    expect(formatAge(seconds)).toBe(text);
  });
});
