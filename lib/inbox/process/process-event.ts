import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool, type Queryable } from "../../db/pool";
import { applyChargeUpdates, paymentKey, type ChargeUpdate } from "../../payments/apply-charge-update";
import type { IgnoredReason } from "../../payments/state-machine";
import { findDriver } from "../../providers/registry";
import type { GatewayClients } from "../../http/gateway-clients";
import type { AccountDirectory } from "../../gateway-accounts/account-directory";
import { accountNamedByBody } from "../ingest/event-account";
import { normalizeEvent, UNPARSEABLE_TYPE } from "../ingest/normalize-event";
import { observeCharge, reconciledObservation, refetchesUnmappedType, type ChargeObservation } from "./observe-charge";
import type { ProviderDriver } from "../../providers/types";
import type { ProviderName } from "../../providers/registry";
import { keptCustomers } from "./kept-customer";
import { scheduleRetry } from "./schedule-retry";
import {
  finishAttempt,
  recordAll,
  reviveColumns,
  settleEvents,
  startAttempts,
  SupersededAttempts,
  type Settled,
  type StartedAttempt,
} from "./track-attempts";

export type ProcessDeps = {
  pool: Pool;
  boss: PgBoss;
  config: AppConfig;
  gateways: GatewayClients;
  /** The gateway accounts whose credentials refetches use; unset: the configuration's alone. */
  accounts?: AccountDirectory;
  /** Recorded on each attempt (host and pid), so an operator can tell which worker ran it. */
  workerId: string;
};

export type ProcessOutcome = "processed" | "ignored" | "failed" | "retry" | "deferred" | "skipped";

/** What a started attempt ends in, decided before any lock is taken. */
type Settlement =
  | { kind: "fail"; started: StartedAttempt; error: string }
  | { kind: "ignore"; started: StartedAttempt; reason: IgnoredReason }
  | { kind: "apply"; started: StartedAttempt; update: ChargeUpdate };

/**
 * Processes a batch of inbox events (pg-boss hands the worker one job per payment per batch): starts
 * their attempts in one statement, parses each event's stored bytes and refetches the charge where
 * configured (outside any transaction), then in one transaction locks the payment rows, applies the
 * state machine and settles every event whose attempt is still the latest. Errors retry on the
 * backoff schedule and end as `failed`; an open circuit defers the event without spending an
 * attempt. If that transaction fails (an unregistered payment, a deadlock), each event is settled
 * again on its own, so one event's error never holds back the others. Outcomes come back in the
 * order of `inboxIds`; `receivedAt` (the jobs', in that order) lets the start read their partitions only.
 */
export async function processEvents(
  deps: ProcessDeps,
  inboxIds: readonly number[],
  receivedAt: readonly (string | undefined)[] = [],
): Promise<ProcessOutcome[]> {
  const distinct = [...new Set(inboxIds)];
  const started = await startAttempts(
    deps.pool,
    deps.workerId,
    distinct,
    distinct.map((id) => receivedAt[inboxIds.indexOf(id)]),
  );
  const prepared = await Promise.all(
    distinct.map((id) => {
      const attempt = started.get(id);
      return attempt ? prepare(deps, attempt) : ("skipped" as const);
    }),
  );
  const outcomes = new Map<number, ProcessOutcome>();
  const settlements: Settlement[] = [];
  prepared.forEach((item, index) => {
    if (typeof item === "string") outcomes.set(distinct[index]!, item);
    else settlements.push(item);
  });
  // One transaction holds at most one event per payment; another of the same payment (not in one
  // batch by the queue's singleton policy, but guarded anyway) settles after it, in batch order.
  for (const round of oneEventPerPayment(settlements)) {
    const settledOutcomes = await settleTogether(deps, round);
    round.forEach((settlement, index) => outcomes.set(settlement.started.id, settledOutcomes[index]!));
  }
  // A repeated id in the batch was started (and settled) once.
  return inboxIds.map((id, index) => (inboxIds.indexOf(id) === index ? outcomes.get(id)! : "skipped"));
}

/** Processes one inbox event (a batch of one). */
export async function processEvent(deps: ProcessDeps, inboxId: number): Promise<ProcessOutcome> {
  return (await processEvents(deps, [inboxId]))[0]!;
}

function oneEventPerPayment(settlements: readonly Settlement[]): Settlement[][] {
  const rounds: Settlement[][] = [];
  const seen = new Map<string, number>();
  for (const settlement of settlements) {
    const key = settlement.kind === "apply" ? paymentKey(settlement.update.provider, settlement.update.chargeId) : null;
    const round = key === null ? 0 : (seen.get(key) ?? -1) + 1;
    if (key !== null) seen.set(key, round);
    (rounds[round] ??= []).push(settlement);
  }
  return rounds;
}

/** Parses a started attempt and observes its charge: what to settle, or the outcome of a retry. */
async function prepare(deps: ProcessDeps, attempt: StartedAttempt): Promise<Settlement | ProcessOutcome> {
  let started = attempt;
  const { maxAttempts } = deps.config.worker;
  if (started.attempts > maxAttempts) {
    return { kind: "fail", started, error: `gave up after ${maxAttempts} attempts (workers stopped during earlier attempts)` };
  }
  const driver = findDriver(started.provider);
  if (!driver) return { kind: "fail", started, error: `no driver for provider "${started.provider}"` };
  if (started.source === "reconcile" && started.eventIdDerived) {
    const reconciled = reconciledObservation(started.rawBody);
    return "error" in reconciled
      ? { kind: "fail", started, error: reconciled.error }
      : applying(deps, driver, started, reconciled.chargeId, reconciled.observation, reconciled.observedAt);
  }
  const normalized = normalizeEvent(driver, started.rawBody, {
    headers: started.headers,
    query: new URLSearchParams(started.queryString ?? ""),
    timeZone: deps.config.providers[driver.name].timeZone,
    settings: deps.config.providers[driver.name].settings,
  });
  // Parsing is deterministic: retrying the same bytes cannot help. A fixed driver + replay can.
  if (!normalized.ok) return { kind: "fail", started, error: normalized.error };
  const { event } = normalized;
  if (started.eventType === UNPARSEABLE_TYPE) {
    const account = accountNamedByBody(deps, driver.name, normalized.columns.account);
    started = await reviveColumns(deps.pool, started, { ...normalized.columns, account });
  }
  try {
    if (event.charge === null && !event.refetchRequired && !refetchesUnmappedType(deps.config, driver, event)) {
      return { kind: "ignore", started, reason: "uninteresting_type" };
    }
    const resourceId = event.resourceId;
    if (!resourceId) return { kind: "ignore", started, reason: "no_resource" };
    const observation = await observeCharge(deps, driver, { ...event, resourceId }, started.account);
    return applying(deps, driver, started, resourceId, observation, event.occurredAt);
  } catch (error) {
    return scheduleRetry(deps, started, error);
  }
}

function applying(
  deps: ProcessDeps,
  driver: ProviderDriver<ProviderName>,
  started: StartedAttempt,
  chargeId: string,
  observation: ChargeObservation,
  occurredAt: string | null,
): Settlement {
  return {
    kind: "apply",
    started,
    update: {
      provider: started.provider,
      chargeId,
      snapshot: observation.snapshot,
      at: observation.at,
      inboxId: started.id,
      cause: { eventId: started.eventId, eventType: started.eventType, occurredAt },
      source: observation.source,
      createIfMissing: deps.config.providers[driver.name].paymentSource === "gateway",
      account: started.account,
    },
  };
}

/**
 * Settles the events in one transaction. Events a newer attempt superseded are left to it and the
 * rest settle again without them; on any other failure each event settles on its own (a lone
 * failure retries on the backoff schedule).
 */
async function settleTogether(deps: ProcessDeps, settlements: readonly Settlement[]): Promise<ProcessOutcome[]> {
  if (settlements.length === 0) return [];
  try {
    const { outcomes, settled } = await withTransaction(deps.pool, (tx) => settleInTransaction(tx, deps.config, settlements));
    recordAll(settled);
    return outcomes;
  } catch (error) {
    if (error instanceof SupersededAttempts) {
      const rest = settlements.filter(({ started }) => !error.inboxIds.has(started.id));
      const settledRest = await settleTogether(deps, rest);
      let next = 0;
      return Promise.all(
        settlements.map(async ({ started }) => {
          if (!error.inboxIds.has(started.id)) return settledRest[next++]!;
          await finishAttempt(deps.pool, started.attemptId, "abandoned", "superseded by a newer attempt");
          return "skipped";
        }),
      );
    }
    if (settlements.length === 1) return [await scheduleRetry(deps, settlements[0]!.started, error)];
    return (await Promise.all(settlements.map((settlement) => settleTogether(deps, [settlement])))).flat();
  }
}

async function settleInTransaction(
  tx: Queryable,
  config: AppConfig,
  settlements: readonly Settlement[],
): Promise<{ outcomes: ProcessOutcome[]; settled: Settled[] }> {
  const applies = settlements.flatMap((s) => (s.kind === "apply" ? [s] : []));
  const results = await applyChargeUpdates(
    tx,
    await keptCustomers(
      tx,
      config,
      applies.map(({ update }) => update),
    ),
  );
  const resultOf = new Map(applies.map(({ started }, index) => [started.id, results[index]!]));
  const settled = settlements.map((settlement): Settled => {
    const { started } = settlement;
    if (settlement.kind === "fail") return { started, status: "failed", error: settlement.error };
    const result = settlement.kind === "ignore" ? { outcome: "ignored" as const, reason: settlement.reason } : resultOf.get(started.id)!;
    return result.outcome === "processed" ? { started, status: "processed" } : { started, status: "ignored", reason: result.reason };
  });
  await settleEvents(tx, settled);
  return { outcomes: settled.map(({ status }) => status), settled };
}
