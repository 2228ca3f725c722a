import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { CHARGE_STATUSES } from "@/lib/canonical/charge-event";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { docBlocks } from "./harness/doc-blocks";
import { openApiChecker, readOpenApiDocument } from "./harness/openapi";

// The host API's OpenAPI document on its own: valid OpenAPI 3.1 by the specification's own schema
// (@seriousme/openapi-schema-validator), every example matching the schema beside it, and the
// vocabularies the code owns spelled the same. Its answers against a running server are checked by
// e2e/openapi-contract.e2e.test.ts.

describe("docs/openapi.json", () => {
  const document = readOpenApiDocument();
  const checker = openApiChecker(document);

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("shows examples that match their own schemas (requests, answers and the pushed messages)", () => {
    const examples = checker.examples();
    expect(examples.map(({ where }) => where)).toEqual(
      expect.arrayContaining([
        "POST /api/payments request",
        "GET /api/payment-changes 200",
        "PUT /api/gateway-accounts/{provider}/{name} request",
        "PUT /api/gateway-accounts/{provider}/{name} 201",
        "webhook payment.updated",
        "webhook customer.erased",
        "webhook destination.test",
      ]),
    );
    for (const { where, problems } of examples) expect(problems, where).toEqual([]);
  });

  it("holds the JSON shapes the docs show (each block marked `schema: X` is an X)", () => {
    const shown = docBlocks().filter(({ tag }) => tag?.startsWith("schema: "));
    expect(shown.map(({ tag }) => tag)).toEqual(
      expect.arrayContaining([
        "schema: PaymentChange",
        "schema: PaymentUpdatedMessage",
        "schema: CustomerErasedMessage",
        "schema: DestinationTestMessage",
      ]),
    );
    for (const block of shown) {
      const name = block.tag!.slice("schema: ".length);
      expect(checker.schema(name, JSON.parse(block.code)), `${block.file}:${block.line}`).toEqual([]);
    }
  });

  it("names the providers and statuses the code knows", () => {
    expect(document.components.schemas.Provider!.enum).toEqual([...PROVIDER_NAMES]);
    expect(document.components.schemas.Status!.enum).toEqual([...CHARGE_STATUSES]);
  });

  it("refuses an answer that drifts: a field renamed, one added, one missing, a wrong type", () => {
    const [change] = (checker.examples().find(({ where }) => where === "GET /api/payment-changes 200")!.example as { data: object[] }).data;
    const page = (data: object) => ({ data: [data], cursor: "cDE" });
    const answer = (data: object) => checker.answer("GET", "/api/payment-changes", 200, page(data));
    expect(answer(change!)).toEqual([]);
    const { customer, ...withoutCustomer } = change as { customer: { id: string; email: string } };
    expect(answer({ ...withoutCustomer, customerId: customer.id, customerEmail: customer.email })).not.toEqual([]);
    expect(answer({ ...change, extra: 1 })).not.toEqual([]);
    expect(answer(withoutCustomer)).not.toEqual([]);
    expect(answer({ ...change, version: "2" })).not.toEqual([]);
    expect(checker.answer("GET", "/api/payment-changes", 200, { data: [], cursor: 5 })).not.toEqual([]);
    expect(
      checker.message("payment.updated", { type: "destination.test", timestamp: "2026-12-01T21:40:12.345678Z", data: change }),
    ).not.toEqual([]);
  });
});
