import { describe, expect, it } from "vitest";
import type { EventDetail } from "../inbox/queries/get-event";
import { MASKED } from "./mask-pii";
import {
  maskAttempts,
  errorCategory,
  maskEventRow,
  maskEvent,
  searchRefusal,
  maskPayment,
  SEARCH_NEEDS_SUPPORT,
  EMAIL_SEARCH_NEEDS_SUPPORT,
} from "./mask-for-role";

// The one place rows become what a role may see.

const stored: EventDetail = {
  id: 7,
  provider: "stripe",
  account: "default",
  eventId: "evt_1",
  eventIdDerived: false,
  eventType: "charge.succeeded",
  resourceId: "ch_1",
  customerId: "cus_secret",
  customerEmail: "joão.silva@exemplo.com.br",
  payload: { id: "evt_1", data: { object: { id: "ch_1", amount: 100, description: "CPF 123.456.789-09" } } },
  rawBody: Buffer.from('{"id":"evt_1","description":"CPF 123.456.789-09"}'),
  headers: { "stripe-signature": "t=1,v1=abc", "content-type": "application/json", "x-customer": "ana@example.com" },
  queryString: "email=ana@example.com",
  occurredAt: new Date(0),
  occurredAtPrecision: "second",
  receivedAt: new Date(0),
  status: "failed",
  ignoredReason: null,
  attempts: 1,
  nextAttemptAt: null,
  lastError: 'body is not valid JSON: Unexpected token, "{"card":"4111111111111111"..." is not valid JSON',
  processedAt: null,
  archivedAt: null,
  source: "delivery",
  redaction: { at: new Date(2), originalSha256: "a".repeat(64), signatureVerifiedAt: new Date(1) },
};

describe("maskEvent", () => {
  it("gives a viewer the allow-listed view: masked e-mail, no customer id, no bytes, an error category", () => {
    const view = maskEvent("viewer", stored);
    expect(view).toMatchObject({
      masked: true,
      eventId: "evt_1",
      resourceId: "ch_1",
      customerEmail: "j***@e***",
      customerId: MASKED,
      rawBody: null,
      queryString: MASKED,
      lastError: "the body could not be read",
      headers: { "stripe-signature": MASKED, "content-type": "application/json", "x-customer": MASKED },
      payload: { id: "evt_1", data: { object: { id: "ch_1", amount: 100, description: MASKED } } },
      // That it was redacted and verified, not the digest of bytes the role may not see.
      redaction: { at: new Date(2), originalSha256: null, signatureVerifiedAt: new Date(1) },
    });
    expect(JSON.stringify(view)).not.toMatch(/silva|cus_secret|123\.456|4111|ana@|aaaa/);
  });

  it("gives support and up the event as stored", () => {
    for (const role of ["support", "finance", "admin"] as const) {
      expect(maskEvent(role, stored)).toEqual({ ...stored, masked: false });
    }
  });

  it("masks attempt errors, explorer rows and payments for a viewer only", () => {
    const attempts = [
      {
        attempt: 1,
        startedAt: new Date(0),
        finishedAt: null,
        durationMs: 3,
        outcome: "retry",
        error: 'HTTP 503 from gateway: {"email":"a@b.co"}',
        worker: "w",
      },
    ];
    expect(maskAttempts("viewer", attempts)[0]!.error).toBe("the gateway could not be reached or refused");
    expect(maskAttempts("support", attempts)).toBe(attempts);
    expect(maskEventRow("viewer", { customerEmail: "Ana@x.io", lastError: "payment ch_1 is not registered yet" })).toEqual({
      customerEmail: "A***@x***",
      lastError: "the payment is not registered yet",
    });
    expect(maskPayment("viewer", { customerEmail: null, customerId: "cus_1" })).toEqual({ customerEmail: null, customerId: MASKED });
    expect(maskPayment("finance", { customerEmail: "a@b.co", customerId: "cus_1" })).toEqual({
      customerEmail: "a@b.co",
      customerId: "cus_1",
    });
  });
});

describe("errorCategory", () => {
  it.each([
    ["RangeError: event time out of range: 9000000000000000 seconds since 1970", "the body could not be read"],
    ["body nests deeper than 64 levels", "the body could not be read"],
    ["not a Stripe event: id Invalid input", "the body could not be read"],
    ["circuit for stripe is open until ...", "the gateway could not be reached or refused"],
    ["gave up after 10 attempts (workers stopped during earlier attempts)", "processing was interrupted"],
    ["something nobody foresaw with ana@example.com in it", "processing error"],
  ])("%s -> %s", (error, category) => {
    expect(errorCategory(error)).toBe(category);
  });
});

describe("searchRefusal", () => {
  it("keeps full-value, e-mail and payload searches for support and up, and says which", () => {
    expect(searchRefusal("viewer", {})).toBeNull();
    expect(searchRefusal("viewer", { search: "c1jcw9" })).toBeNull();
    expect(searchRefusal("viewer", { customer: "cus_123" })).toBe(SEARCH_NEEDS_SUPPORT);
    expect(searchRefusal("viewer", { jsonPath: "data.object.customer", jsonValue: "cus_1" })).toBe(SEARCH_NEEDS_SUPPORT);
    expect(searchRefusal("viewer", { search: "customer7@" })).toBe(EMAIL_SEARCH_NEEDS_SUPPORT);
    expect(searchRefusal("support", { customer: "ana@example.com", jsonPath: "a", jsonValue: "b", search: "ana@" })).toBeNull();
  });
});
