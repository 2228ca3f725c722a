import { describe, expect, it } from "vitest";
import { REDACTED } from "../canonical/redacted";
import { shownCustomer } from "./shown-customer";

describe("shownCustomer", () => {
  it("links an unmasked role to the customer's page, and shows a masked role the masked e-mail only", () => {
    expect(shownCustomer("ana@example.com", true)).toEqual({ customerShown: "ana@example.com", customerRef: "ana@example.com" });
    expect(shownCustomer("ana@example.com", false).customerRef).toBeNull();
  });

  it("shows an erased customer as such, linking nowhere (every erased payment shares the value)", () => {
    for (const unmasked of [true, false]) expect(shownCustomer(REDACTED, unmasked)).toEqual({ customerShown: REDACTED, customerRef: null });
  });
});
