import { isForward, type PaymentState } from "@/lib/payments/state-machine";
import { UNSUPPORTED_STEPS, type HistoryStep, type PaymentFacts, type SimulatedProvider } from "@/lib/testing/gateway-events";

// Random but reproducible payment histories, and the true final state of each.

/** A small seeded PRNG (mulberry32): the same seed gives the same histories. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type PaymentHistory = {
  provider: SimulatedProvider;
  payment: PaymentFacts;
  steps: HistoryStep[];
  truth: PaymentState;
};

type Kind = HistoryStep["kind"];

/** Weighted scenarios: the shapes of payment lives a gateway reports. */
function scenario(random: () => number): Kind[] {
  const roll = random();
  if (roll < 0.2) return ["succeeded"];
  if (roll < 0.32) return ["pending", "succeeded"];
  if (roll < 0.4) return ["pending", "failed"];
  if (roll < 0.46) return ["authorized", "canceled"];
  if (roll < 0.6) return ["succeeded", "refund"];
  if (roll < 0.78) return ["succeeded", ...Array<Kind>(1 + Math.floor(random() * 3)).fill("refund")];
  if (roll < 0.86) return ["succeeded", "dispute_opened", "dispute_won"];
  if (roll < 0.92) return ["succeeded", "dispute_opened", "dispute_lost"];
  if (roll < 0.96) return ["succeeded", "dispute_opened"];
  // A charge can be disputed again after a first dispute was won.
  return ["succeeded", "dispute_opened", "dispute_won", "dispute_opened", "dispute_lost"];
}

/** How the merchant integrated (see PaymentFacts.integration): mostly the classic way. */
function integration(random: () => number, provider: SimulatedProvider): PaymentFacts["integration"] {
  const roll = random();
  if (provider === "stripe") return roll < 0.2 ? "intents" : roll < 0.4 ? "charges_and_intents" : undefined;
  return provider === "standard" && roll < 0.3 ? "dodo" : undefined;
}

/** The state a payment is in after a step (the simulator's own truth, independent of the app). */
export function stateAfter(kind: Kind, amount: number, amountRefunded: number): PaymentState {
  switch (kind) {
    case "pending":
      return { status: "pending", amountRefunded: 0 };
    case "authorized":
      return { status: "authorized", amountRefunded: 0 };
    case "succeeded":
    case "dispute_won":
      return { status: "paid", amountRefunded };
    case "failed":
      return { status: "failed", amountRefunded: 0 };
    case "canceled":
      return { status: "canceled", amountRefunded: 0 };
    case "refund":
      return { status: amountRefunded >= amount ? "refunded" : "partially_refunded", amountRefunded };
    case "dispute_opened":
      return { status: "disputed", amountRefunded };
    case "dispute_lost":
      return { status: "charged_back", amountRefunded };
  }
}

/** The history up to and including step `index`: what the gateway showed then. */
export function historyAsOf(history: PaymentHistory, index: number): PaymentHistory {
  const steps = history.steps.slice(0, index + 1);
  const last = steps.at(-1)!;
  return { ...history, steps, truth: stateAfter(last.kind, history.payment.amount, last.amountRefunded) };
}

export type HistoryOptions = {
  /** Probability that a step happens in the same second as the one before it. */
  sameSecondRate?: number;
  /** Where the first event of each payment may fall: [start, start + spreadMs). */
  startMs?: number;
  spreadMs?: number;
};

/**
 * One payment's history. Steps in the same second are only generated where the order is still
 * decidable without a clock: the later state must be a step forward from the earlier one and not
 * the other way round (a dispute opened and won in one second is not; refetch settles those).
 */
export function generateHistory(
  random: () => number,
  provider: SimulatedProvider,
  index: number,
  options: HistoryOptions = {},
): PaymentHistory {
  const { sameSecondRate = 0.25, startMs = Date.now() - 3_600_000, spreadMs = 1_800_000 } = options;
  const amount = 500 + Math.floor(random() * 100_000);
  const brazilian = provider !== "stripe" && provider !== "standard";
  const currencyRoll = random();
  const payment: PaymentFacts = {
    chargeId: `${provider === "stripe" ? "ch" : "pay"}_sim_${index}_${Math.floor(random() * 1e9).toString(36)}`,
    amount,
    currency: brazilian || currencyRoll >= 0.5 ? "brl" : "usd",
    customerId: `cus_${index % 97}`,
    customerEmail: `customer${index % 97}@example.com`,
  };
  const how = integration(random, provider);
  if (how) payment.integration = how;
  // Scenarios with a step the gateway can't report are drawn again (same seed, same histories).
  const unsupported = UNSUPPORTED_STEPS[provider] ?? [];
  let kinds = scenario(random);
  while (kinds.some((kind) => unsupported.includes(kind))) kinds = scenario(random);
  const refunds = kinds.filter((kind) => kind === "refund").length;
  const steps: HistoryStep[] = [];
  let refunded = 0;
  let previous: PaymentState | null = null;
  let at = startMs + Math.floor(random() * spreadMs);
  for (const kind of kinds) {
    if (kind === "refund") {
      const remaining = amount - refunded;
      const isLast = steps.filter((step) => step.kind === "refund").length === refunds - 1;
      refunded += isLast && random() < 0.4 ? remaining : Math.max(1, Math.floor(remaining * (0.2 + random() * 0.4)));
    }
    const state = stateAfter(kind, amount, refunded);
    const sameSecondAllowed = previous !== null && isForward(previous, state) && !isForward(state, previous);
    if (previous !== null) {
      const secondStart = Math.floor(at / 1000) * 1000;
      at =
        sameSecondAllowed && random() < sameSecondRate && at % 1000 < 998
          ? at + 1 + Math.floor(random() * (secondStart + 999 - at))
          : secondStart + 1000 * (1 + Math.floor(random() * 120)) + Math.floor(random() * 1000);
    }
    steps.push({ kind, amountRefunded: refunded, occurredAtMs: at });
    previous = state;
  }
  return { provider, payment, steps, truth: previous! };
}

export function generateHistories(
  seed: number,
  count: number,
  providers: SimulatedProvider[],
  options: HistoryOptions = {},
): PaymentHistory[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => generateHistory(random, providers[index % providers.length]!, index, options));
}
