import { describe, expect, it } from "vitest";
import { agree, plural, statusLabel } from "./words";

describe("words", () => {
  it("counts agree with their noun and verb", () => {
    expect(`${plural(1, "failed event")} ${agree(1, "needs", "need")} a person`).toBe("1 failed event needs a person");
    expect(`${plural(3, "failed event")} ${agree(3, "needs", "need")} a person`).toBe("3 failed events need a person");
    expect(plural(0, "event")).toBe("0 events");
    expect(plural(1204, "delivery", "deliveries")).toBe("1,204 deliveries");
    expect(plural(1, "push", "pushes")).toBe("1 push");
  });

  it("a status reads as words", () => {
    expect(statusLabel("partially_refunded")).toBe("partially refunded");
    expect(statusLabel("paid")).toBe("paid");
  });
});
