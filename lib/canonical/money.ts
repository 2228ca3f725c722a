// Money is an integer in its currency's minor unit as ISO 4217 counts it (cents of USD, yen of JPY,
// fils of KWD). This is the one place that knows how many decimals each currency has, and the one
// function every reader of an amount (console, CSV, totals) formats it with.
//
// The exponents are ISO 4217's own (List One), not Intl's: Intl's currency digits are CLDR's display
// preference, which drops decimals ISO counts (HUF, COP, IDR show 0 digits, IQD 0 where ISO has 3), so
// dividing by them would misread amounts a gateway sends in minor units.

/** Every currency whose minor unit is not a hundredth, with its ISO 4217 exponent. */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** How many decimals the currency's minor unit has (2 for any code ISO lists with cents, or doesn't list). */
export function minorUnitDigits(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

/** An amount in minor units as an exact decimal in the currency's own unit: 1234 JPY "1234", 12345 KWD "12.345". */
export function decimalAmount(amount: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const units = Math.abs(Math.trunc(amount))
    .toString()
    .padStart(digits + 1, "0");
  const sign = amount < 0 ? "-" : "";
  return digits === 0 ? `${sign}${units}` : `${sign}${units.slice(0, -digits)}.${units.slice(-digits)}`;
}

const formats = new Map<string, Intl.NumberFormat | null>();

function formatFor(currency: string): Intl.NumberFormat | null {
  const code = currency.toUpperCase();
  if (!formats.has(code)) {
    const digits = minorUnitDigits(code);
    try {
      formats.set(
        code,
        new Intl.NumberFormat("en-US", { style: "currency", currency: code, minimumFractionDigits: digits, maximumFractionDigits: digits }),
      );
    } catch {
      formats.set(code, null);
    }
  }
  return formats.get(code)!;
}

/**
 * An amount in minor units as a person reads it ("¥1,234", "R$659.98", "KWD 12.345"): every minor
 * unit shown, none rounded away. Without a currency the amount can't be scaled and shows as stored.
 */
export function formatMoney(amount: number, currency: string | null): string {
  if (!currency) return String(amount);
  const decimal = decimalAmount(amount, currency);
  // Intl reads a numeric string exactly (no binary fractions); an unreadable code is shown as given.
  return formatFor(currency)?.format(decimal as Intl.StringNumericLiteral) ?? `${decimal} ${currency.toUpperCase()}`;
}

/**
 * What an amount typed into a search ("659.98", "659,98", "1500") is in minor units, for each
 * currency exponent it can be written in: "12.5" is 1250 cents, 12500 fils, 125000 of a 4-digit
 * unit, and no yen amount. Thousands separators are not read ("1,234" is 1.234). Null when the term
 * is not an amount.
 */
export function amountReadings(term: string): { amount: number; currencies: string[]; exceptCurrencies: string[] }[] | null {
  const match = /^(\d{1,15})(?:[.,](\d{1,4}))?$/.exec(term.trim());
  if (!match) return null;
  const [, units, decimals = ""] = match;
  const exceptional = Object.keys(EXPONENTS);
  return [0, 2, 3, 4]
    .filter((digits) => decimals.length <= digits)
    .map((digits) => ({
      amount: Number(`${units}${decimals.padEnd(digits, "0")}`),
      // Every code ISO gives this exponent; for cents, every code but the exceptions.
      currencies: digits === 2 ? [] : exceptional.filter((code) => EXPONENTS[code] === digits),
      exceptCurrencies: digits === 2 ? exceptional : [],
    }))
    .filter((reading) => Number.isSafeInteger(reading.amount));
}
