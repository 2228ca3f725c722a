import { describe, expect, it } from "vitest";
import { declineSentence } from "./decline-words";

describe("declineSentence", () => {
  it("says the gateway's message, then its code", () => {
    expect(declineSentence({ code: "51", message: "Saldo insuficiente" })).toBe("Declined: Saldo insuficiente (code 51)");
  });

  it("makes a code readable when no message came", () => {
    expect(declineSentence({ code: "cc_rejected_insufficient_amount" })).toBe(
      "Declined: cc rejected insufficient amount (code cc_rejected_insufficient_amount)",
    );
  });

  it("says the message alone when no code came", () => {
    expect(declineSentence({ message: "Credit card payment failure" })).toBe("Declined: Credit card payment failure");
  });

  it("says nothing without a reason", () => {
    expect(declineSentence(null)).toBeNull();
    expect(declineSentence({})).toBeNull();
  });
});
