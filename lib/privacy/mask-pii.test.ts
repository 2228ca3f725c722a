import { describe, expect, it } from "vitest";
import { maskEmail, maskPii, maskText } from "./mask-pii";

describe("maskPii", () => {
  it("masks personal fields deeply and e-mails anywhere, keeping ids, types and amounts of the event", () => {
    const masked = maskPii({
      id: "evt_1",
      type: "charge.succeeded",
      data: {
        object: {
          id: "ch_1",
          amount: 1000,
          customer: "cus_123456",
          receipt_email: "ana.souza@example.com",
          billing_details: { name: "Ana Souza", phone: "+55 11 99999-0000", address: { city: "São Paulo" } },
          payment_method_details: { card: { last4: "4242", brand: "visa" } },
          description: "order for ana.souza@example.com",
        },
      },
    });
    expect(masked).toEqual({
      id: "evt_1",
      type: "charge.succeeded",
      data: {
        object: {
          id: "ch_1",
          amount: 1000,
          customer: "cu***",
          receipt_email: "a***@e***",
          billing_details: { name: "An***", phone: "+5***", address: { city: "Sã***" } },
          payment_method_details: { card: { last4: "***", brand: "***" } },
          description: "order for a***@e***",
        },
      },
    });
    expect(JSON.stringify(masked)).not.toMatch(/ana|souza|4242|99999/i);
  });

  it("masks e-mails in text", () => {
    expect(maskEmail("bo@example.org")).toBe("b***@e***");
    expect(maskText("from bo@example.org and cy@test.io")).toBe("from b***@e*** and c***@t***");
  });
});
