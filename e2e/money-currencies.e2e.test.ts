import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "@/lib/destinations/sign-message";
import type { PaymentChange } from "@/lib/outbox/payment-change";
import type { HistoryStep } from "@/lib/testing/gateway-events";
import { TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import type { AppServer } from "./harness/app-server";
import { horizontalOverflow, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { stateAfter, type PaymentHistory } from "./simulator/history";
import { startHostReceiver, type HostReceiver } from "./simulator/host-receiver";

// [FINANCE][MONEY]: one customer's payments in four currencies with three exponents (JPY none, USD
// and BRL two, KWD three) arrive as their gateways send them (Stripe's integer minor units, a
// Standard Webhooks sender's integers, Asaas's decimal reais for payments the host registered), and
// every reader agrees on every amount: the payments list and its totals, each payment's page and
// the customer page in Chromium at 1440 and 390 px, the CSV export, the change feed and the pushes
// to the host. The expected texts are written out by hand, as a person reads these amounts; the
// totals count captured money only (docs/console.md, "Totals").

const FINANCE = "finance@money.test";
const TOKEN = "e2e-money-token-0123456789";
const CUSTOMER = "ana@money.test";
const ASAAS_TOKEN = "asaas_e2e_money_token";
const WIDTHS = [1440, 390] as const;

type Expected = {
  provider: "stripe" | "standard" | "asaas";
  currency: string;
  kinds: HistoryStep["kind"][];
  /** Minor units, as the feed and the pushes carry them. */
  amount: number;
  refunded: number;
  /** The console's amount, refunded and net; the CSV's amount and refunded. */
  shown: [amount: string, refunded: string, net: string];
  csv: [amount: string, refunded: string];
};

const PAYMENTS: Expected[] = [
  {
    provider: "stripe",
    currency: "jpy",
    kinds: ["succeeded"],
    amount: 1234,
    refunded: 0,
    shown: ["¥1,234", "¥0", "¥1,234"],
    csv: ["1234", "0"],
  },
  {
    provider: "stripe",
    currency: "jpy",
    kinds: ["succeeded", "refund"],
    amount: 5000,
    refunded: 1200,
    shown: ["¥5,000", "¥1,200", "¥3,800"],
    csv: ["5000", "1200"],
  },
  {
    provider: "stripe",
    currency: "jpy",
    kinds: ["pending", "failed"],
    amount: 9999,
    refunded: 0,
    shown: ["¥9,999", "¥0", "¥0"],
    csv: ["9999", "0"],
  },
  {
    provider: "stripe",
    currency: "usd",
    kinds: ["succeeded"],
    amount: 1999,
    refunded: 0,
    shown: ["$19.99", "$0.00", "$19.99"],
    csv: ["19.99", "0.00"],
  },
  {
    provider: "stripe",
    currency: "usd",
    kinds: ["succeeded", "refund"],
    amount: 2500,
    refunded: 500,
    shown: ["$25.00", "$5.00", "$20.00"],
    csv: ["25.00", "5.00"],
  },
  {
    provider: "stripe",
    currency: "usd",
    kinds: ["pending", "failed"],
    amount: 92756,
    refunded: 0,
    shown: ["$927.56", "$0.00", "$0.00"],
    csv: ["927.56", "0.00"],
  },
  {
    provider: "stripe",
    currency: "usd",
    kinds: ["succeeded", "dispute_opened"],
    amount: 3000,
    refunded: 0,
    shown: ["$30.00", "$0.00", "$30.00"],
    csv: ["30.00", "0.00"],
  },
  {
    provider: "standard",
    currency: "kwd",
    kinds: ["succeeded"],
    amount: 12345,
    refunded: 0,
    shown: ["KWD 12.345", "KWD 0.000", "KWD 12.345"],
    csv: ["12.345", "0.000"],
  },
  {
    provider: "standard",
    currency: "kwd",
    kinds: ["succeeded", "refund"],
    amount: 1005,
    refunded: 5,
    shown: ["KWD 1.005", "KWD 0.005", "KWD 1.000"],
    csv: ["1.005", "0.005"],
  },
  {
    provider: "standard",
    currency: "kwd",
    kinds: ["pending", "failed"],
    amount: 777,
    refunded: 0,
    shown: ["KWD 0.777", "KWD 0.000", "KWD 0.000"],
    csv: ["0.777", "0.000"],
  },
  {
    provider: "standard",
    currency: "kwd",
    kinds: ["succeeded", "dispute_opened", "dispute_lost"],
    amount: 2000,
    refunded: 0,
    shown: ["KWD 2.000", "KWD 0.000", "KWD 0.000"],
    csv: ["2.000", "0.000"],
  },
  {
    provider: "asaas",
    currency: "brl",
    kinds: ["succeeded"],
    amount: 65998,
    refunded: 0,
    shown: ["R$659.98", "R$0.00", "R$659.98"],
    csv: ["659.98", "0.00"],
  },
  {
    provider: "asaas",
    currency: "brl",
    kinds: ["succeeded", "refund"],
    amount: 10050,
    refunded: 2025,
    shown: ["R$100.50", "R$20.25", "R$80.25"],
    csv: ["100.50", "20.25"],
  },
  {
    provider: "asaas",
    currency: "brl",
    kinds: ["pending", "canceled"],
    amount: 92756,
    refunded: 0,
    shown: ["R$927.56", "R$0.00", "R$0.00"],
    csv: ["927.56", "0.00"],
  },
];

/** Each currency's totals: payments, then captured, refunded, disputed, charged back and net. */
const TOTALS: Record<string, [payments: number, captured: string, refunded: string, disputed: string, chargedBack: string, net: string]> = {
  jpy: [3, "¥6,234", "¥1,200", "¥0", "¥0", "¥5,034"],
  usd: [4, "$74.99", "$5.00", "$30.00", "$0.00", "$69.99"],
  kwd: [4, "KWD 15.350", "KWD 0.005", "KWD 0.000", "KWD 2.000", "KWD 13.345"],
  brl: [3, "R$760.48", "R$20.25", "R$0.00", "R$0.00", "R$740.23"],
};
const FIGURES = ["captured", "refunded", "disputed", "chargedBack", "net"] as const;

let world: ConsoleWorld;
let app: TestApp;
let server: AppServer;
let receiver: HostReceiver;
let histories: PaymentHistory[];

const chargeOf = (index: number) => `${PAYMENTS[index]!.provider === "stripe" ? "ch" : "pay"}_money_${index}`;
/** Text as read, with Intl's no-break spaces as plain ones. */
const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.replace(/\s+/g, " ").trim();

function browserAs(width: number): Promise<Page> {
  return world.browserAs(FINANCE, { width, height: 900 });
}

beforeAll(async () => {
  const base = Date.now() - 20 * 60_000;
  histories = PAYMENTS.map((expected, index) => {
    let refunded = 0;
    const steps = expected.kinds.map((kind, position) => {
      if (kind === "refund") refunded = expected.refunded;
      return { kind, amountRefunded: refunded, occurredAtMs: base + index * 60_000 + position * 5_000 };
    });
    return {
      provider: expected.provider,
      payment: {
        chargeId: chargeOf(index),
        amount: expected.amount,
        currency: expected.currency,
        customerId: "cus_ana",
        customerEmail: CUSTOMER,
      },
      steps,
      truth: stateAfter(steps.at(-1)!.kind, expected.amount, refunded),
    };
  });
  const secret = generateSecret();
  receiver = await startHostReceiver(secret);
  // The gateways' APIs answer refetches (Asaas's every event, Stripe's disputes) with these payments.
  world = await startConsoleWorld({
    label: "money_currencies",
    users: { [FINANCE]: "finance" },
    secrets: { stripe: TEST_SECRETS.stripe, standard: TEST_SECRETS.standard, asaas: ASAAS_TOKEN },
    histories,
    env: { PAYMENTS_API_TOKENS: TOKEN, DESTINATION_URL: receiver.url, DESTINATION_SECRET: secret, WORKER_CONCURRENCY: "4" },
  });
  ({ app, server } = world);
  // Asaas payments come from the host application (its default): registered in minor units first.
  for (const history of histories.filter((entry) => entry.provider === "asaas")) {
    const response = await fetch(`${server.url}/api/payments`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        provider: "asaas",
        chargeId: history.payment.chargeId,
        amount: history.payment.amount,
        currency: "brl",
        customer: { id: history.payment.customerId, email: CUSTOMER },
      }),
    });
    expect(response.status).toBe(201);
  }
  await world.sendHistories({ duplicateRate: 0.3, shuffle: "payment", seed: 28 }, 4);
  await world.settled(90_000);
  await waitFor(
    async () =>
      (
        await app.pool.query(
          "SELECT 1 FROM payment_changes c LEFT JOIN deliveries d ON d.change_id = c.id AND d.status = 'delivered' WHERE d.id IS NULL LIMIT 1",
        )
      ).rowCount === 0,
    60_000,
    "every change pushed",
  );
}, 240_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

describe("[FINANCE][MONEY] one amount everywhere, in four currencies", () => {
  it("ends each payment in its true state, as the host is told", () => {
    for (const history of histories) {
      expect(receiver.lastVersion.get(`${history.provider}/${history.payment.chargeId}`), history.payment.chargeId).toMatchObject({
        status: history.truth.status,
      });
    }
  });

  it("carries the same minor units in the change feed and in the pushes", async () => {
    const feed = new Map<string, PaymentChange>();
    let cursor = "";
    for (;;) {
      const response = await fetch(`${server.url}/api/payment-changes?limit=100${cursor ? `&after=${cursor}` : ""}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: PaymentChange[]; cursor: string };
      for (const change of page.data) feed.set(`${change.provider}/${change.chargeId}`, change);
      cursor = page.cursor;
      if (page.data.length === 0) break;
    }
    for (const [index, expected] of PAYMENTS.entries()) {
      const key = `${expected.provider}/${chargeOf(index)}`;
      const money = { amount: expected.amount, amountRefunded: expected.refunded, currency: expected.currency };
      expect(feed.get(key), key).toMatchObject(money);
      expect(receiver.lastVersion.get(key), key).toMatchObject({ ...money, version: feed.get(key)!.version });
    }
  });

  for (const width of WIDTHS) {
    it(`shows the same amounts and honest totals on the payments list, each payment and the customer page, and in the CSV, at ${width} px`, async () => {
      const page = await browserAs(width);
      const ids = new Map(
        (await app.pool.query<{ charge: string; id: string }>("SELECT gateway_charge_id AS charge, id::text FROM payments")).rows.map(
          (row) => [row.charge, row.id],
        ),
      );

      // The payments list: each currency's totals, and each row's amount and refunded.
      await page.goto(`${server.url}/payments`);
      for (const [currency, [payments, ...figures]] of Object.entries(TOTALS)) {
        const total = `[data-testid=payment-total-${currency}]`;
        expect(await text(page, total)).toContain(`${payments} payments`);
        for (const [position, figure] of FIGURES.entries()) {
          expect(await text(page, `${total} [data-figure=${figure}] .money`), `${currency} ${figure}`).toBe(figures[position]);
        }
        // Failed and canceled attempts are counted by status, their amounts in no figure.
        expect(await text(page, total)).not.toMatch(/927\.56|9,999|0\.777/);
      }
      for (const [index, expected] of PAYMENTS.entries()) {
        const row = `table[aria-label=Payments] tr[data-charge="${chargeOf(index)}"]`;
        expect(await text(page, `${row} td[data-col=amount]`), chargeOf(index)).toBe(expected.shown[0]);
        expect(await text(page, `${row} td[data-col=amountRefunded]`), chargeOf(index)).toBe(expected.shown[1]);
      }
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `money-payments-${width}`, width > 390);

      // The CSV of the same list.
      const csv = await (await page.request.get(`${server.url}${await page.getByTestId("export-payments").getAttribute("href")}`)).text();
      // Read by the header's names: the CSV's column order follows the list on screen.
      const [header, ...lines] = csv
        .replace(/^\ufeff/, "")
        .trim()
        .split("\r\n");
      const column = (name: string) => header!.split(",").indexOf(name);
      const cells = new Map(
        lines
          .map((line) => line.split(","))
          .map((cell) => [cell[column("charge_id")]!, [cell[column("amount")], cell[column("amount_refunded")], cell[column("currency")]]]),
      );
      for (const [index, expected] of PAYMENTS.entries()) {
        expect(cells.get(chargeOf(index)), chargeOf(index)).toEqual([...expected.csv, expected.currency.toUpperCase()]);
      }

      // Each payment's page: amount (an attempt says it was not captured), refunded, net.
      for (const [index, expected] of PAYMENTS.entries()) {
        await page.goto(`${server.url}/payments/${ids.get(chargeOf(index))}`);
        const attempted = expected.kinds.includes("failed") || expected.kinds.includes("canceled");
        expect(await text(page, "[data-testid=payment-amount]")).toBe(`${expected.shown[0]}${attempted ? " (not captured)" : ""}`);
        expect(await text(page, "[data-testid=payment-refunded]")).toBe(expected.shown[1]);
        expect(await text(page, "[data-testid=payment-net]")).toBe(expected.shown[2]);
        if (expected.kinds.at(-1) === "dispute_opened") expect(await text(page, "[data-testid=payment-disputed]")).toBe(expected.shown[0]);
        if (expected.kinds.at(-1) === "dispute_lost")
          expect(await text(page, "[data-testid=payment-charged-back]")).toBe(expected.shown[0]);
        expect(await horizontalOverflow(page)).toBe(0);
        if (expected.currency === "kwd" || expected.currency === "jpy") {
          await screenshot(page, `money-payment-${expected.currency}-${index}-${width}`, width > 390);
        }
      }

      // The customer page: the same totals over the same payments, the same amounts in its table.
      await page.goto(`${server.url}/customers/${encodeURIComponent(CUSTOMER)}`);
      for (const [currency, [payments, ...figures]] of Object.entries(TOTALS)) {
        const total = `[data-testid=customer-total-${currency}]`;
        expect(await text(page, total)).toContain(`${payments} payments`);
        for (const [position, figure] of FIGURES.entries()) {
          expect(await text(page, `${total} [data-figure=${figure}] .money`), `${currency} ${figure}`).toBe(figures[position]);
        }
      }
      for (const [index, expected] of PAYMENTS.entries()) {
        const row = `table[aria-label="Customer payments"] tr[data-charge="${chargeOf(index)}"]`;
        expect(await text(page, `${row} td[data-col=amount]`), chargeOf(index)).toBe(expected.shown[0]);
      }
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `money-customer-${width}`, width > 390);
    }, 120_000);
  }
});
