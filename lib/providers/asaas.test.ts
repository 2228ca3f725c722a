import { describe, expect, it } from "vitest";
import { asaasDriver } from "./asaas";
import { ParseError } from "./types";

const TOKEN = "whk_asaas_token_0123456789";
const NOW = 1_767_000_000;

// Shaped on Asaas's PAYMENT_RECEIVED webhook.
const payment = (extra: Record<string, unknown> = {}) => ({
  object: "payment",
  id: "pay_080225913252",
  dateCreated: "2024-06-12",
  customer: "cus_G7Dvo4iphUNk",
  value: 100,
  netValue: 94.51,
  billingType: "CREDIT_CARD",
  status: "RECEIVED",
  deleted: false,
  refunds: null,
  ...extra,
});
const body = JSON.stringify({
  id: "evt_05b708f961d739ea7eba7e4db318f621&368604920",
  event: "PAYMENT_RECEIVED",
  dateCreated: "2024-06-12 16:45:03",
  payment: payment(),
});
const raw = Buffer.from(body);

function verify(headers: Record<string, string>, secrets = [TOKEN], payload = raw) {
  return asaasDriver.verify(payload, headers, { secrets, nowSeconds: NOW, toleranceSeconds: 300, query: new URLSearchParams() });
}

describe("asaas verify", () => {
  it("accepts the configured asaas-access-token", () => {
    expect(verify({ "asaas-access-token": TOKEN })).toEqual({ ok: true });
  });

  it("rejects a wrong or missing token", () => {
    expect(verify({ "asaas-access-token": "whk_other" })).toEqual({ ok: false, reason: "asaas-access-token matches no configured secret" });
    expect(verify({ "asaas-access-token": `${TOKEN}x` }).ok).toBe(false);
    expect(verify({ "asaas-access-token": "" }).ok).toBe(false);
    expect(verify({})).toEqual({ ok: false, reason: "missing asaas-access-token header" });
  });

  it("accepts either token during a rotation", () => {
    expect(verify({ "asaas-access-token": "old" }, ["new", "old"]).ok).toBe(true);
    expect(verify({ "asaas-access-token": "new" }, ["new", "old"]).ok).toBe(true);
    expect(verify({ "asaas-access-token": "retired" }, ["new", "old"]).ok).toBe(false);
  });

  it("cannot detect a tampered body (nothing is signed): the reason every event is refetched", () => {
    expect(verify({ "asaas-access-token": TOKEN }, [TOKEN], Buffer.from(body.replace('"value":100', '"value":1'))).ok).toBe(true);
  });
});

const context = (timeZone = "America/Sao_Paulo") => ({ headers: {}, query: new URLSearchParams(), timeZone });
function event(type: string, data: Record<string, unknown> | null = payment(), dateCreated = "2024-06-12 16:45:03") {
  return Buffer.from(JSON.stringify({ id: "evt_x", event: type, dateCreated, payment: data }));
}

describe("asaas parse", () => {
  it("normalizes a PAYMENT_RECEIVED: key, payment, customer, local time read in São Paulo", () => {
    const parsed = asaasDriver.parse(raw, context());
    expect(parsed).toMatchObject({
      eventId: "evt_05b708f961d739ea7eba7e4db318f621&368604920",
      eventIdDerived: false,
      type: "PAYMENT_RECEIVED",
      resourceId: "pay_080225913252",
      // 16:45:03 in São Paulo (UTC-3) is 19:45:03 UTC.
      occurredAt: "2024-06-12T19:45:03Z",
      precision: "second",
      customerId: "cus_G7Dvo4iphUNk",
      customerEmail: null,
      charge: { status: "paid", amount: 10000, currency: "brl", customerId: "cus_G7Dvo4iphUNk" },
      refetchRequired: false,
    });
    expect(parsed.payload).toEqual(JSON.parse(body));
  });

  it("reads dateCreated in whichever zone is configured", () => {
    expect(asaasDriver.parse(raw, context("UTC")).occurredAt).toBe("2024-06-12T16:45:03Z");
  });

  it("converts decimal reais to cents", () => {
    expect(asaasDriver.parse(event("PAYMENT_CONFIRMED", payment({ value: 10.5 })), context()).charge?.amount).toBe(1050);
    expect(asaasDriver.parse(event("PAYMENT_CONFIRMED", payment({ value: 0.29 })), context()).charge?.amount).toBe(29);
  });

  it.each([
    ["PAYMENT_CREATED", "pending"],
    ["PAYMENT_AWAITING_RISK_ANALYSIS", "pending"],
    ["PAYMENT_OVERDUE", "pending"],
    ["PAYMENT_AUTHORIZED", "authorized"],
    ["PAYMENT_CONFIRMED", "paid"],
    ["PAYMENT_RECEIVED", "paid"],
    ["PAYMENT_REPROVED_BY_RISK_ANALYSIS", "failed"],
    ["PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", "failed"],
    ["PAYMENT_DELETED", "canceled"],
    ["PAYMENT_REFUNDED", "refunded"],
    ["PAYMENT_PARTIALLY_REFUNDED", "partially_refunded"],
    ["PAYMENT_CHARGEBACK_REQUESTED", "disputed"],
    ["PAYMENT_CHARGEBACK_DISPUTE", "disputed"],
    ["PAYMENT_AWAITING_CHARGEBACK_REVERSAL", "paid"],
  ])("maps %s to %s", (type, status) => {
    const parsed = asaasDriver.parse(event(type), context());
    expect(parsed.charge?.status).toBe(status);
    expect(parsed.resourceId).toBe("pay_080225913252");
  });

  it("reads a refund as partial from the refunds that went through", () => {
    const refunds = [
      { status: "DONE", value: 30 },
      { status: "CANCELLED", value: 70 },
    ];
    expect(asaasDriver.parse(event("PAYMENT_REFUNDED", payment({ refunds })), context()).charge).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 3000,
    });
  });

  it("keeps other events with no charge state", () => {
    expect(asaasDriver.parse(event("PAYMENT_REFUND_IN_PROGRESS"), context())).toMatchObject({
      resourceId: "pay_080225913252",
      charge: null,
    });
    const transfer = Buffer.from(
      JSON.stringify({ id: "evt_t", event: "TRANSFER_CREATED", dateCreated: "2024-06-12 16:45:03", transfer: { id: "tr_1" } }),
    );
    expect(asaasDriver.parse(transfer, context())).toMatchObject({ resourceId: null, charge: null, customerId: null });
  });

  it("throws ParseError on bodies that are not Asaas events", () => {
    expect(() => asaasDriver.parse(Buffer.from("<xml/>"), context())).toThrow(ParseError);
    expect(() => asaasDriver.parse(Buffer.from('{"event":"PAYMENT_RECEIVED"}'), context())).toThrow(ParseError);
    expect(() => asaasDriver.parse(event("PAYMENT_RECEIVED", payment(), "12/06/2024 16:45"), context())).toThrow(ParseError);
    expect(() => asaasDriver.parse(event("PAYMENT_RECEIVED", null), context())).toThrow(ParseError);
    expect(() => asaasDriver.parse(event("PAYMENT_RECEIVED", payment({ value: "100" })), context())).toThrow(ParseError);
  });
});

describe("asaas refetch", () => {
  async function refetch(body: Record<string, unknown>) {
    const paths: string[] = [];
    const snapshot = await asaasDriver.refetch!(
      "pay_080225913252",
      async (path) => {
        paths.push(path);
        return body;
      },
      {},
    );
    expect(paths).toEqual(["/payments/pay_080225913252"]);
    return snapshot;
  }

  it("GETs the payment and maps it to cents", async () => {
    expect(await refetch(payment({ value: 49.9 }))).toEqual({
      status: "paid",
      amount: 4990,
      currency: "brl",
      customerId: "cus_G7Dvo4iphUNk",
      // Asaas restores deleted payments: this state may follow a cancellation.
      reopens: ["canceled"],
    });
  });

  it.each([
    [{ status: "PENDING" }, "pending"],
    [{ status: "OVERDUE" }, "pending"],
    [{ status: "AUTHORIZED" }, "authorized"],
    [{ status: "CONFIRMED" }, "paid"],
    [{ status: "RECEIVED" }, "paid"],
    [{ status: "RECEIVED_IN_CASH" }, "paid"],
    [{ status: "REFUND_REQUESTED" }, "paid"],
    [{ status: "REFUNDED" }, "refunded"],
    [{ status: "REFUNDED", refunds: [{ status: "DONE", value: 100 }] }, "refunded"],
    [{ status: "RECEIVED", refunds: [{ status: "DONE", value: 25 }] }, "partially_refunded"],
    [{ status: "RECEIVED", refunds: [{ status: "PENDING", value: 25 }] }, "paid"],
    [{ status: "CHARGEBACK_REQUESTED" }, "disputed"],
    [{ status: "CHARGEBACK_DISPUTE" }, "disputed"],
    [{ status: "AWAITING_CHARGEBACK_REVERSAL" }, "paid"],
    [{ status: "PENDING", deleted: true }, "canceled"],
  ])("maps %o to %s", async (fields, status) => {
    expect((await refetch(payment(fields))).status).toBe(status);
  });

  it("rejects an unknown status or a body that is not a payment", async () => {
    await expect(refetch(payment({ status: "SOMETHING_NEW" }))).rejects.toThrow(ParseError);
    await expect(refetch({ errors: [{ code: "not_found" }] })).rejects.toThrow(ParseError);
  });
});
