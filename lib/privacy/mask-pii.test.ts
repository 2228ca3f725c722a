import { describe, expect, it } from "vitest";
import { MASKED, maskEmail, maskPayload } from "./mask-pii";

// The viewer's allow-list: hostile payloads carrying each item the old
// deny-list missed, by name. Each must come out masked; the event's own facts must still show.

/** The value at `path` (keys and indexes) in a masked payload. */
function at(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

const hostile: Record<string, { payload: unknown; secret: string; at: (string | number)[] }> = {
  "card number in a free-text field": {
    payload: { data: { object: { id: "ch_1", description: "card 4111 1111 1111 1111 exp 12/30" } } },
    secret: "4111",
    at: ["data", "object", "description"],
  },
  "card number under an innocent key": {
    payload: { data: { object: { metadata: { ref: "4111111111111111" } } } },
    secret: "4111111111111111",
    at: ["data", "object", "metadata", "ref"],
  },
  "card number in an id-like field": {
    payload: { data: { object: { id: "4111111111111111" } } },
    secret: "4111111111111111",
    at: ["data", "object", "id"],
  },
  CVC: { payload: { payment: { cvc: "737", cvv: 123 } }, secret: "737", at: ["payment", "cvc"] },
  "CPF inside free text": {
    payload: { payment: { observations: "cliente CPF 123.456.789-09" } },
    secret: "123.456.789-09",
    at: ["payment", "observations"],
  },
  "CNPJ inside free text": {
    payload: { data: { note: "CNPJ 12345678000195" } },
    secret: "12345678000195",
    at: ["data", "note"],
  },
  "bare CPF digits in a status-like field": {
    payload: { payment: { status: "12345678909" } },
    secret: "12345678909",
    at: ["payment", "status"],
  },
  "phone field": { payload: { customer: { mobilePhone: "+55 11 99999-0000" } }, secret: "99999", at: ["customer", "mobilePhone"] },
  "phone under an unknown key": { payload: { data: { tel: "11999990000" } }, secret: "11999990000", at: ["data", "tel"] },
  "address fields": {
    payload: { shipping: { line1: "Rua Augusta 1500", city: "São Paulo" } },
    secret: "Augusta",
    at: ["shipping", "line1"],
  },
  "customer id (string)": {
    payload: { data: { object: { customer: "cus_123456" } } },
    secret: "cus_123456",
    at: ["data", "object", "customer"],
  },
  "customer id (object id)": {
    payload: { data: { customer: { id: "cus_999", name: "Ana" } } },
    secret: "cus_999",
    at: ["data", "customer", "id"],
  },
  "customer name": { payload: { data: { holder_name: "Ana Souza" } }, secret: "Souza", at: ["data", "holder_name"] },
  "e-mail in free text": {
    payload: { data: { object: { description: "order for ana.souza@example.com" } } },
    secret: "souza",
    at: ["data", "object", "description"],
  },
  "non-ASCII e-mail": {
    payload: { data: { object: { receipt_email: "joão.silva@exemplo.com.br" } } },
    secret: "silva",
    at: ["data", "object", "receipt_email"],
  },
  "non-ASCII e-mail under an unknown key": {
    payload: { data: { contato: "joão@exemplo.com.br" } },
    secret: "joão",
    at: ["data", "contato"],
  },
  "e-mail in an amount-like field": { payload: { data: { amount: "ana@example.com" } }, secret: "ana", at: ["data", "amount"] },
  "birth date": {
    payload: { customer: { birthDate: "1990-01-01" }, data: { born_at: "1990-01-01" } },
    secret: "1990",
    at: ["data", "born_at"],
  },
  "document in an array": { payload: { data: { documents: ["123.456.789-09"] } }, secret: "123.456", at: ["data", "documents", 0] },
  "id of a card object": {
    payload: { data: { object: { card: { id: "card_abc", last4: "4242" } } } },
    secret: "card_abc",
    at: ["data", "object", "card", "id"],
  },
};

describe("maskPayload (the viewer's allow-list)", () => {
  for (const [name, { payload, secret, at: path }] of Object.entries(hostile)) {
    it(`masks ${name}`, () => {
      const masked = maskPayload(payload);
      expect(JSON.stringify(masked)).not.toContain(secret);
      expect(at(masked, path)).toMatch(/^(\*\*\*|.\*\*\*@.\*\*\*)$/);
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
