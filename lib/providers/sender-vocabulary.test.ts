import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config/env";

describe("STANDARD_STATUS_MAP, STANDARD_TYPE_MAP, STANDARD_FIELD_MAP", () => {
  it("reads word=status and field=path pairs (status words case-insensitive)", () => {
    const config = loadConfig({
      STANDARD_STATUS_MAP: "Settled=paid, reversed=charged_back",
      STANDARD_TYPE_MAP: "order.paid=paid",
      STANDARD_FIELD_MAP: "amount=totals.gross,customerEmail=buyer.mail",
    });
    expect(config.providers.standard.settings).toEqual({
      statuses: { settled: "paid", reversed: "charged_back" },
      types: { "order.paid": "paid" },
      fields: { amount: "totals.gross", customerEmail: "buyer.mail" },
    });
    expect(loadConfig({}).providers.standard.settings).toEqual({ statuses: {}, types: {}, fields: {} });
  });

  it.each([
    [{ STANDARD_STATUS_MAP: "settled=done" }, /STANDARD_STATUS_MAP: "done" is not one of pending/],
    [{ STANDARD_TYPE_MAP: "order.paid" }, /STANDARD_TYPE_MAP: "order.paid" is not key=value/],
    [{ STANDARD_FIELD_MAP: "total=amount" }, /STANDARD_FIELD_MAP: "total" is not one of id, status/],
    [{ STANDARD_FIELD_MAP: "amount=totals..gross" }, /STANDARD_FIELD_MAP: "totals..gross" is not a dot path/],
  ])("refuses %o, naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
