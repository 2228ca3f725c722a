import { describe, expect, it } from "vitest";
import { readFixture } from "../testing/gateway-fixtures";
import { REDACTED, identifierHash, isSubjectKey, personalValues, redactPayload, redactText } from "./personal-data";
import { DRIVERS, findDriver } from "./registry";

// Each driver's declared paths, run on its gateway's own published bodies: the person goes, the
// charge's facts and the customer id stay.

const pathsOf = (provider: string) => findDriver(provider)!.personalData;

describe("redactPayload by a driver's declared paths", () => {
  it("takes the customer out of a Pagar.me charge and keeps the charge", () => {
    const webhook = readFixture<{ data: Record<string, unknown> & { customer: Record<string, unknown> } }>(
      "pagarme/charge-refunded-webhook.json",
    );
    const { value, changed } = redactPayload(webhook, { paths: pathsOf("pagarme"), identifiers: [] });
    const text = JSON.stringify(value);
    for (const personal of ["Rafael Teste", "rafael@example.com", "32399872525"]) expect(text).not.toContain(personal);
    expect(changed).toBeGreaterThanOrEqual(3);
    const data = (value as typeof webhook).data;
    expect(data.customer.id).toBe("cus_EmY3x9IxrhbbK0A4");
    expect(data.customer.email).toBe(REDACTED);
    expect({ id: data.id, amount: data.amount, status: data.status, canceled: data.canceled_amount }).toEqual({
      id: "ch_0ZK4qDViEiz7WMbg",
      amount: 21734,
      status: "canceled",
      canceled: 21734,
    });
  });

  it("takes the billing details out of a Stripe charge event", () => {
    const charge = readFixture<Record<string, unknown>>("stripe/charge.json");
    const event = { id: "evt_1", type: "charge.succeeded", data: { object: charge } };
    const { value } = redactPayload(event, { paths: pathsOf("stripe"), identifiers: [] });
    expect(JSON.stringify(value)).not.toContain("Jenny Rosen");
    expect((value as typeof event).data.object.amount).toBe(charge.amount);
  });

  it("takes a Mercado Pago payer's identification and phone, keeping the payer id", () => {
    const payment = {
      id: 123,
      status: "approved",
      transaction_amount: 10,
      payer: {
        id: "77",
        email: "ana@exemplo.com.br",
        identification: { type: "CPF", number: "12345678909" },
        phone: { area_code: "11", number: "999990000" },
      },
    };
    const { value } = redactPayload(payment, { paths: pathsOf("mercadopago"), identifiers: [] });
    expect(value).toEqual({
      ...payment,
      payer: {
        id: "77",
        email: REDACTED,
        identification: { type: REDACTED, number: REDACTED },
        phone: { area_code: REDACTED, number: REDACTED },
      },
    });
  });

  it("every driver declares where its bodies carry a person", () => {
    for (const driver of DRIVERS) expect(driver.personalData.length, driver.name).toBeGreaterThan(0);
  });
});

describe("redaction by the subject's identifiers", () => {
  it("replaces an identifier anywhere in the JSON, in any case, and a document with or without its punctuation", () => {
    const payload = {
      data: { description: "pedido de ANA@Exemplo.com.br", metadata: { cpf: "123.456.789-09", other: "12345678909", safe: "ch_1" } },
    };
    const { value, changed } = redactPayload(payload, { paths: [], identifiers: ["ana@exemplo.com.br", "12345678909"] });
    expect(value).toEqual({ data: { description: `pedido de ${REDACTED}`, metadata: { cpf: REDACTED, other: REDACTED, safe: "ch_1" } } });
    expect(changed).toBe(3);
  });

  it("changes nothing the second time", () => {
    const first = redactPayload({ a: "x ana@b.co", customer: { name: "Ana" } }, { paths: ["customer"], identifiers: ["ana@b.co"] });
    expect(redactPayload(first.value, { paths: ["customer"], identifiers: ["ana@b.co"] }).changed).toBe(0);
  });

  it("walks a deep payload without recursion", () => {
    let deep: unknown = "ana@b.co";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(redactPayload(deep, { paths: [], identifiers: ["ana@b.co"] }).changed).toBe(1);
  });

  it("redacts text and lists the values the declared paths hold", () => {
    expect(redactText("x-customer: ana@b.co", ["ANA@B.CO"])).toEqual({ text: `x-customer: ${REDACTED}`, changed: 1 });
    expect(personalValues({ data: { customer: { email: "a@b.co", document: "1", id: "cus" } } }, pathsOf("pagarme")).sort()).toEqual([
      "1",
      "a@b.co",
    ]);
  });

  it("finds a document or a whole phone number however it is punctuated, and hashes each form alike", () => {
    const text = "CPF 390.533.447-05, fone +55 (11) 97654-3210, outro 39053344705";
    expect(redactText(text, ["39053344705", "5511976543210"])).toEqual({
      text: `CPF ${REDACTED}, fone +${REDACTED}, outro ${REDACTED}`,
      changed: 3,
    });
    expect(identifierHash("k", "390.533.447-05")).toBe(identifierHash("k", "39053344705"));
    expect(identifierHash("k", "+55 (11) 97654-3210")).toBe(identifierHash("k", "5511976543210"));
  });
});

describe("isSubjectKey: what singles a person out, so a later delivery naming it is theirs", () => {
  it("is an e-mail, a document or a whole phone number", () => {
    for (const key of ["ana@exemplo.com.br", "390.533.447-05", "12.345.678/0001-95", "+55 11 97654-3210", "1197654321"])
      expect(isSubjectKey(key), key).toBe(true);
  });

  it("is not a zip code, a local phone number, a city or a date: many people share those", () => {
    for (const shared of ["01310-100", "01310100", "976543210", "São Paulo", "1990-05-17", "Rua Augusta 1234, apto 56, 01310-100"])
      expect(isSubjectKey(shared), shared).toBe(false);
  });
});
