import { describe, expect, it } from "vitest";
import { fromIso, fromLocalTime, fromUnixSeconds } from "./event-time";

describe("event times", () => {
  it("keeps the precision the gateway gave", () => {
    expect(fromIso("2024-06-12T16:45:03Z")).toEqual({ occurredAt: "2024-06-12T16:45:03Z", precision: "second" });
    expect(fromIso("2024-06-12T16:45:03.12Z")).toEqual({ occurredAt: "2024-06-12T16:45:03.12Z", precision: "millisecond" });
    expect(fromIso("2024-06-12T16:45:03.123456789Z")).toEqual({
      occurredAt: "2024-06-12T16:45:03.123456Z",
      precision: "microsecond",
    });
  });

  it("normalizes offsets to UTC", () => {
    expect(fromIso("2024-06-12T13:45:03.500-03:00")?.occurredAt).toBe("2024-06-12T16:45:03.500Z");
    expect(fromIso("2024-06-12 16:45:03")).toBeNull();
  });

  it("reads zone-less local times in the configured zone", () => {
    expect(fromLocalTime("2024-06-12 16:45:03", "America/Sao_Paulo")?.occurredAt).toBe("2024-06-12T19:45:03Z");
    expect(fromLocalTime("2024-01-15T08:00:00", "Europe/Berlin")?.occurredAt).toBe("2024-01-15T07:00:00Z");
    expect(fromLocalTime("2024-07-15T08:00:00", "Europe/Berlin")?.occurredAt).toBe("2024-07-15T06:00:00Z");
  });

  it("converts Unix seconds", () => {
    expect(fromUnixSeconds(0)).toEqual({ occurredAt: "1970-01-01T00:00:00Z", precision: "second" });
  });
});
