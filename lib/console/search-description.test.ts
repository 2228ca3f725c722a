import { describe, expect, it } from "vitest";
import { describeSearch } from "./search-description";

describe("describeSearch", () => {
  it("says what a search looked through, for the role that ran it", () => {
    expect(describeSearch("events", "c1jcw9", false).searched).toBe(
      "Searched event ids, charge ids and customer ids containing 'c1jcw9'; customer e-mails starting with or containing it.",
    );
    expect(describeSearch("events", "c1jcw9", true).searched).toBe("Searched event ids and charge ids containing 'c1jcw9'.");
    expect(describeSearch("payments", "659.98", true).searched).toBe("Searched charge ids containing '659.98'; amounts of exactly 659.98.");
    expect(describeSearch("events", "c1", false).searched).toBe(
      "Searched event ids, charge ids and customer ids equal to 'c1'; customer e-mails equal to it.",
    );
    expect(describeSearch("events", undefined, false).searched).toBeNull();
  });

  it("offers only what the role may search, and hints when a search finds nothing", () => {
    expect(describeSearch("events", undefined, true).label).toBe("Search (event or charge id)");
    expect(describeSearch("payments", undefined, false).label).toBe("Search (e-mail, charge or customer id, or amount)");
    expect(describeSearch("events", undefined, false).empty).toBe("No events match these filters.");
    expect(describeSearch("events", "zq9xk", true).empty).toBe(
      "No events match. Ids match by any part of 3 characters or more. Try fewer characters, or clear the other filters.",
    );
    expect(describeSearch("payments", "c1", false).empty).toBe(
      "No payments match. Ids match by any part of 3 characters or more; e-mails by their start, or by a part without the @; amounts exactly (659.98). Type at least 3 characters, or clear the other filters.",
    );
  });
});
