import { describe, expect, it } from "vitest";
import { amountReadings, decimalAmount, formatMoney, minorUnitDigits } from "./money";

// The exponents come from ISO 4217 (List One), the formats from Intl; a space in Intl's output is a
// no-break space, written \u00a0 here.

describe("money", () => {
  it("counts each currency's minor unit as ISO 4217 does", () => {
    for (const code of ["JPY", "KRW", "CLP", "VND", "ISK", "UGX", "XOF", "PYG"]) expect(minorUnitDigits(code)).toBe(0);
    for (const code of ["BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD"]) expect(minorUnitDigits(code)).toBe(3);
    for (const code of ["USD", "BRL", "EUR", "HUF", "COP", "IDR", "MGA", "TWD"]) expect(minorUnitDigits(code)).toBe(2);
    expect(minorUnitDigits("CLF")).toBe(4);
    expect(minorUnitDigits("jpy")).toBe(0);
  });

  it("writes an amount as an exact decimal in the currency's unit", () => {
    expect(decimalAmount(1234, "jpy")).toBe("1234");
    expect(decimalAmount(65998, "brl")).toBe("659.98");
    expect(decimalAmount(5, "usd")).toBe("0.05");
    expect(decimalAmount(12345, "kwd")).toBe("12.345");
    expect(decimalAmount(7, "kwd")).toBe("0.007");
    expect(decimalAmount(-250, "usd")).toBe("-2.50");
    expect(decimalAmount(9_007_199_254_740_991, "usd")).toBe("90071992547409.91");
  });

  it("formats every minor unit, for zero-, two- and three-decimal currencies", () => {
    expect(formatMoney(1234, "jpy")).toBe("¥1,234");
    expect(formatMoney(65998, "brl")).toBe("R$659.98");
    expect(formatMoney(199900, "usd")).toBe("$1,999.00");
    expect(formatMoney(12345, "kwd")).toBe("KWD\u00a012.345");
    // Intl alone would show HUF with no decimals (CLDR's display digits), dropping the 50 fillér.
    expect(formatMoney(150050, "huf")).toBe("HUF\u00a01,500.50");
    expect(formatMoney(0, "jpy")).toBe("¥0");
  });

  it("shows an amount without a currency as stored, and an unreadable code beside the decimal", () => {
    expect(formatMoney(1234, null)).toBe("1234");
    expect(formatMoney(1234, "u$d")).toBe("12.34 U$D");
  });

  it("reads a typed amount in each exponent it can be written in, and nothing else as an amount", () => {
    const amounts = (term: string) => amountReadings(term)?.map((reading) => reading.amount) ?? null;
    expect(amounts("1500")).toEqual([1500, 150000, 1500000, 15000000]);
    expect(amounts("659.98")).toEqual([65998, 659980, 6599800]);
    expect(amounts("659,98")).toEqual([65998, 659980, 6599800]);
    expect(amounts("12.345")).toEqual([12345, 123450]);
    const cents = amountReadings("659.98")![0]!;
    expect(cents.exceptCurrencies).toContain("JPY");
    expect(cents.currencies).toEqual([]);
    expect(amountReadings("12.345")![0]!.currencies).toContain("KWD");
    for (const term of ["ch_1500", "1,234.50", "12.34567", "", "1e5", "-5"]) expect(amountReadings(term)).toBeNull();
  });
});
