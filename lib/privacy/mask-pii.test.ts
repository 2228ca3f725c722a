import { describe, expect, it } from "vitest";
import { MASKED, maskEmail, maskPayload } from "./mask-pii";

// The viewer's allow-list (issue 8, finding 4): hostile payloads carrying each item the old
// deny-list missed, by name. Each must come out masked; the event's own facts must still show.

const hostile: Record<string, { payload: unknown; secret: string; at: (masked: unknown) => unknown }> = {
  "card number in a free-text field": {
    payload: { data: { object: { id: "ch_1", description: "card 4111 1111 1111 1111 exp 12/30" } } },
    secret: "4111",
    at: (masked) => (masked as any).data.object.description,
  },
  "card number under an innocent key": {
    payload: { data: { object: { metadata: { ref: "4111111111111111" } } } },
    secret: "4111111111111111",
    at: (masked) => (masked as any).data.object.metadata.ref,
  },
  "card number in an id-like field": {
    payload: { data: { object: { id: "4111111111111111" } } },
    secret: "4111111111111111",
    at: (masked) => (masked as any).data.object.id,
  },
  CVC: { payload: { payment: { cvc: "737", cvv: 123 } }, secret: "737", at: (masked) => (masked as any).payment.cvc },
  "CPF inside free text": {
    payload: { payment: { observations: "cliente CPF 123.456.789-09" } },
    secret: "123.456.789-09",
    at: (masked) => (masked as any).payment.observations,
  },
  "CNPJ inside free text": {
    payload: { data: { note: "CNPJ 12345678000195" } },
    secret: "12345678000195",
    at: (masked) => (masked as any).data.note,
  },
  "bare CPF digits in a status-like field": {
    payload: { payment: { status: "12345678909" } },
    secret: "12345678909",
    at: (masked) => (masked as any).payment.status,
  },
  "phone field": { payload: { customer: { mobilePhone: "+55 11 99999-0000" } }, secret: "99999", at: (masked) => (masked as any).customer.mobilePhone },
  "phone under an unknown key": { payload: { data: { tel: "11999990000" } }, secret: "11999990000", at: (masked) => (masked as any).data.tel },
  "address fields": {
    payload: { shipping: { line1: "Rua Augusta 1500", city: "São Paulo" } },
    secret: "Augusta",
    at: (masked) => (masked as any).shipping.line1,
  },
  "customer id (string)": { payload: { data: { object: { customer: "cus_123456" } } }, secret: "cus_123456", at: (masked) => (masked as any).data.object.customer },
  "customer id (object id)": {
    payload: { data: { customer: { id: "cus_999", name: "Ana" } } },
    secret: "cus_999",
    at: (masked) => (masked as any).data.customer.id,
  },
  "customer name": { payload: { data: { holder_name: "Ana Souza" } }, secret: "Souza", at: (masked) => (masked as any).data.holder_name },
  "e-mail in free text": {
    payload: { data: { object: { description: "order for ana.souza@example.com" } } },
    secret: "souza",
    at: (masked) => (masked as any).data.object.description,
  },
  "non-ASCII e-mail": {
    payload: { data: { object: { receipt_email: "joão.silva@exemplo.com.br" } } },
    secret: "silva",
    at: (masked) => (masked as any).data.object.receipt_email,
  },
  "non-ASCII e-mail under an unknown key": {
    payload: { data: { contato: "joão@exemplo.com.br" } },
    secret: "joão",
    at: (masked) => (masked as any).data.contato,
  },
  "e-mail in an amount-like field": { payload: { data: { amount: "ana@example.com" } }, secret: "ana", at: (masked) => (masked as any).data.amount },
  "birth date": { payload: { customer: { birthDate: "1990-01-01" }, data: { born_at: "1990-01-01" } }, secret: "1990", at: (masked) => (masked as any).data.born_at },
  "document in an array": { payload: { data: { documents: ["123.456.789-09"] } }, secret: "123.456", at: (masked) => (masked as any).data.documents[0] },
  "id of a card object": { payload: { data: { object: { card: { id: "card_abc", last4: "4242" } } } }, secret: "card_abc", at: (masked) => (masked as any).data.object.card.id },
};

describe("maskPayload (the viewer's allow-list)", () => {
  for (const [name, { payload, secret, at }] of Object.entries(hostile)) {
    it(`masks ${name}`, () => {
      const masked = maskPayload(payload);
      expect(JSON.stringify(masked)).not.toContain(secret);
      expect(at(masked)).toMatch(/^(\*\*\*|.\*\*\*@.\*\*\*)$/);
    });
  }

  it("shows the event's own facts: ids of events and charges, types, statuses, amounts, currencies, dates", () => {
    const payload = {
      id: "evt_1",
      type: "charge.refunded",
      created: 1767000000,
      livemode: false,
      data: {
        object: {
          id: "ch_1",
          object: "charge",
          amount: 2500,
          amount_refunded: 500,
          currency: "brl",
          status: "succeeded",
          created_at: "2026-05-25T13:01:08.000-03:00",
          charges: [{ id: "ch_2", status: "paid", paid_amount: 100 }],
        },
      },
    };
    expect(maskPayload(payload)).toEqual(payload);
  });

  it("keeps the keys, masks the values, and leaves null as null", () => {
    expect(maskPayload({ data: { secret_note: "x", nested: { deep: [1, "two"] }, empty: null } })).toEqual({
      data: { secret_note: MASKED, nested: { deep: [MASKED, MASKED] }, empty: null },
    });
  });

  it("walks a deep payload without recursion", () => {
    let deep: unknown = "leak";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    let leaf = (maskPayload({ data: deep }) as { data: unknown }).data;
    while (Array.isArray(leaf)) leaf = leaf[0];
    expect(leaf).toBe(MASKED);
  });
});

describe("maskEmail", () => {
  it("keeps the first character of each side, by code point", () => {
    expect(maskEmail("bo@example.org")).toBe("b***@e***");
    expect(maskEmail("ção@ñandú.com.br")).toBe("ç***@ñ***");
    expect(maskEmail("🙂x@example.com")).toBe("🙂***@e***");
    expect(maskEmail("no at sign")).toBe(MASKED);
  });
});
