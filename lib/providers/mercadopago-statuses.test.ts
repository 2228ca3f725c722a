import { describe, expect, it } from "vitest";
import { documentedRows, readFixture, variant } from "@/lib/testing/gateway-fixtures";
import type { ChargeSnapshot } from "../canonical/charge-event";
import type { GatewayFetch } from "./types";
import { mercadopagoDriver, searchDate } from "./mercadopago";

// One case per row of docs/gateways.md's Mercado Pago table, each on the payment Mercado Pago's own
// Adobe Commerce plugin mocks (an approved, accredited card payment of R$58.80), varied only in the
// fields each row is about; the notifications in Mercado Pago's documented shape.

type Payment = Record<string, unknown> & { id: number; status: string; status_detail: string };
const payment = readFixture<Payment>("mercadopago/payment.json");
const context = (dataId: string) => ({ headers: {}, query: new URLSearchParams({ "data.id": dataId }), timeZone: "UTC" });

/** GET /v1/payments/{id} answering the payment with `fields`. */
const refetched = (fields: Partial<Payment>): Promise<ChargeSnapshot> =>
  mercadopagoDriver.refetch!(String(payment.id), (async () => variant(payment, fields)) as GatewayFetch, {});

const status =
  (value: string, detail: string, expected: string, fields: Partial<Payment> = {}) =>
  async () => {
    expect((await refetched({ status: value, status_detail: detail, ...fields })).status).toBe(expected);
  };

/** A notification of `type` (topic) and `action`, for the data.id the query signs. */
function notice(action: string, type: string) {
  const body = {
    id: 112233445566,
    live_mode: true,
    type,
    date_created: "2019-07-10T11:47:59.000-03:00",
    user_id: 448876418,
    api_version: "v1",
    action,
    data: { id: String(payment.id) },
  };
  return mercadopagoDriver.parse(Buffer.from(JSON.stringify(body)), context(String(payment.id)));
}
const paymentNotice = (action: string) => async () => {
  expect(notice(action, "payment")).toMatchObject({ resourceId: "20359978", charge: null, refetchRequired: true });
  expect(await refetched({})).toMatchObject({
    status: "paid",
    amount: 5880,
    currency: "brl",
    customerEmail: "test_user_80507629@testuser.com",
  });
};
const otherTopic = (type: string) => () => {
  expect(notice(`${type.replace(/^topic_|_wh$/g, "")}.created`, type)).toMatchObject({
    resourceId: null,
    charge: null,
    refetchRequired: false,
  });
};

const cases: Record<string, () => void | Promise<void>> = {
  "payment status: pending": status("pending", "pending_waiting_payment", "pending"),
  "payment status: in_process": status("in_process", "pending_contingency", "pending"),
  "payment status: authorized": status("authorized", "pending_capture", "authorized"),
  "payment status: approved": async () => {
    expect(await refetched({})).toMatchObject({ status: "paid", amount: 5880, amountRefunded: 0 });
    expect(await refetched({ status_detail: "partially_refunded", transaction_amount_refunded: 8.8 })).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 880,
    });
  },
  "payment status: in_mediation": status("in_mediation", "in_process", "disputed"),
  "payment status: rejected": status("rejected", "cc_rejected_insufficient_amount", "failed"),
  "payment status: cancelled": status("cancelled", "by_collector", "canceled"),
  "payment status: refunded": async () => {
    expect(await refetched({ status: "refunded", status_detail: "refunded", transaction_amount_refunded: 58.8 })).toMatchObject({
      status: "refunded",
      amountRefunded: 5880,
    });
  },
  "payment status: charged_back": async () => {
    // A chargeback naming no outcome is taken as charged back.
    expect((await refetched({ status: "charged_back", status_detail: "something_new" })).status).toBe("charged_back");
    expect((await refetched({ status: "charged_back", status_detail: null as never })).status).toBe("charged_back");
  },
  "status_detail: accredited": status("approved", "accredited", "paid"),
  "status_detail: partially_refunded": async () => {
    expect(await refetched({ status_detail: "partially_refunded", transaction_amount_refunded: 20 })).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 2000,
    });
  },
  "status_detail: pending_capture": status("authorized", "pending_capture", "authorized"),
  "status_detail: offline_process": status("in_process", "offline_process", "pending"),
  "status_detail: pending_contingency": status("in_process", "pending_contingency", "pending"),
  "status_detail: pending_review_manual": status("in_process", "pending_review_manual", "pending"),
  "status_detail: deferred_retry": status("in_process", "deferred_retry", "pending"),
  "status_detail: pending_waiting_transfer": status("pending", "pending_waiting_transfer", "pending"),
  "status_detail: pending_waiting_payment": status("pending", "pending_waiting_payment", "pending"),
  "status_detail: pending_challenge": status("pending", "pending_challenge", "pending"),
  "status_detail: expired": status("cancelled", "expired", "canceled"),
  "status_detail: by_collector": status("cancelled", "by_collector", "canceled"),
  "status_detail: by_payer": status("cancelled", "by_payer", "canceled"),
  "status_detail: in_process": async () => {
    expect((await refetched({ status: "charged_back", status_detail: "in_process" })).status).toBe("disputed");
    expect((await refetched({ status: "in_process", status_detail: "pending_review_manual" })).status).toBe("pending");
  },
  "status_detail: settled": status("charged_back", "settled", "charged_back"),
  "status_detail: reimbursed": async () => {
    expect(await refetched({ status: "charged_back", status_detail: "reimbursed" })).toMatchObject({ status: "paid", amountRefunded: 0 });
    // Refunded in part before the chargeback: back to that, as a won dispute.
    expect(await refetched({ status: "charged_back", status_detail: "reimbursed", transaction_amount_refunded: 8.8 })).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 880,
    });
  },
  "status_detail: refunded": status("refunded", "refunded", "refunded", { transaction_amount_refunded: 58.8 }),
  "status_detail: by_admin": status("refunded", "by_admin", "refunded", { transaction_amount_refunded: 58.8 }),
  "status_detail: cc_rejected_*": async () => {
    for (const detail of ["cc_rejected_high_risk", "cc_rejected_bad_filled_card_number", "bank_error", "rejected_by_regulations"]) {
      expect((await refetched({ status: "rejected", status_detail: detail })).status).toBe("failed");
    }
  },
  "event: payment.created": paymentNotice("payment.created"),
  "event: payment.updated": paymentNotice("payment.updated"),
  "event: topic_chargebacks_wh": otherTopic("topic_chargebacks_wh"),
  "event: topic_claims_integration_wh": otherTopic("topic_claims_integration_wh"),
  "event: topic_merchant_order_wh": otherTopic("topic_merchant_order_wh"),
};

describe("Mercado Pago's documented statuses and notification topics", () => {
  it("has one case per row of docs/gateways.md's Mercado Pago table, and no other", () => {
    expect(Object.keys(cases).sort()).toEqual(documentedRows("Mercado Pago").sort());
  });

  it.each(Object.entries(cases))("%s", async (_row, check) => {
    await check();
  });
});

describe("Mercado Pago's payment search, as reconciliation asks it", () => {
  const DOCUMENTED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

  it("sends its dates as yyyy-MM-dd'T'HH:mm:ss.SSSZ with a numeric offset", async () => {
    const paths: string[] = [];
    const answer = { paging: { total: 1, limit: 30, offset: 0 }, results: [variant(payment, {})] };
    const page = await mercadopagoDriver.lister!.listPage(
      (async (path: string) => {
        paths.push(path);
        return answer;
      }) as GatewayFetch,
      { since: new Date("2026-12-01T03:00:00Z"), until: new Date("2026-12-01T03:15:00.250Z"), pageToken: null, pageSize: 30 },
    );
    const query = new URLSearchParams(paths[0]!.slice(paths[0]!.indexOf("?") + 1));
    expect(query.get("begin_date")).toBe("2026-12-01T03:00:00.000+00:00");
    expect(query.get("end_date")).toBe("2026-12-01T03:15:00.250+00:00");
    expect(query.get("begin_date")).toMatch(DOCUMENTED);
    expect(query.get("range")).toBe("date_last_updated");
    expect(page.items).toMatchObject([{ kind: "resource", resourceId: "20359978", snapshot: { status: "paid" } }]);
  });

  it("keeps the instant: the same time Mercado Pago's -03:00 example names", () => {
    expect(new Date(searchDate(new Date("2026-12-01T00:00:00.000-03:00"))).toISOString()).toBe("2026-12-01T03:00:00.000Z");
  });
});
