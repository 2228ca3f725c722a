import { can, type Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { resourceTimeline, type TimelineEntry } from "../inbox/queries/get-event";
import { getPaymentById, type PaymentRecord } from "../payments/get-payment";
import { paymentMoney, wasCaptured, type PaymentMoney } from "../payments/payment-money";
import { shownCustomer, type ShownCustomer } from "../privacy/shown-customer";
import { maskPayment } from "../privacy/mask-for-role";
import { declineSentence } from "./decline-words";
import { factLabel } from "../text/words";

/** Where one fact came from: the event (or its refetch) that first supplied it, and its outcome. */
export type FactSource = { fact: string; inboxId: number; eventId: string; eventType: string; status: string; source: string };

export type PaymentPageView = {
  payment: Omit<PaymentRecord, "customerEmail">;
  customer: ShownCustomer;
  timeline: TimelineEntry[];
  factsFrom: FactSource[];
  /** Its money by its status, as the totals count it: nothing captured unless the gateway took it. */
  money: PaymentMoney;
  attemptedOnly: boolean;
  /** Why the gateway refused it, in words ("Declined: ... (code ...)"); null once it succeeded or when none is known. */
  decline: string | null;
};

/** The payment's facts_from as sentences' parts: each fact with the event that supplied it. */
async function factSources(db: Queryable, paymentId: number): Promise<FactSource[]> {
  const { rows } = await db.query<FactSource>(
    `SELECT f.key AS fact, w.id AS "inboxId", w.event_id AS "eventId", w.event_type AS "eventType", w.status, f.value->>'source' AS source
       FROM payments p, jsonb_each(p.facts_from) f
       JOIN webhook_inbox w ON w.id = (f.value->>'inboxId')::bigint
      WHERE p.id = $1
      ORDER BY array_position(ARRAY['amount', 'currency', 'customerEmail', 'customerId', 'account'], f.key)`,
    [paymentId],
  );
  return rows.map((row) => ({ ...row, fact: factLabel(row.fact) }));
}

/** One payment with its timeline as `role` may see it; null when there is no such payment. */
export async function getPaymentView(db: Queryable, role: Role, id: number): Promise<PaymentPageView | null> {
  const stored = await getPaymentById(db, id);
  if (!stored) return null;
  const { customerEmail: _masked, ...payment } = maskPayment(role, stored);
  return {
    payment,
    customer: shownCustomer(stored.customerEmail, can(role, "payload.unmasked")),
    timeline: await resourceTimeline(db, stored.provider, stored.chargeId),
    factsFrom: await factSources(db, stored.id),
    money: paymentMoney(stored.status, stored.amount, stored.amountRefunded),
    attemptedOnly: !wasCaptured(stored.status),
    decline: declineSentence(stored.declineReason),
  };
}
