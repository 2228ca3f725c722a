import type { Precision } from "../../canonical/charge-event";
import { isStorableText, storableText } from "../../request/storable-text";
import { rawBodyKey } from "../../providers/signature";
import type { NormalizedEvent, ParseContext, ProviderDriver } from "../../providers/types";

/**
 * What an event's row holds once its driver has read it. Ingest and revival (a body stored as
 * unparseable that a fixed driver now reads) both write these, so the two can't drift.
 */
export type NormalizedColumns = {
  eventId: string;
  eventIdDerived: boolean;
  type: string;
  resourceId: string | null;
  customerId: string | null;
  /** Lower-case, so a search by e-mail is one index lookup. */
  customerEmail: string | null;
  /** The payload as jsonb text, or null when jsonb can't hold it (the raw bytes are kept anyway). */
  payload: string | null;
  occurredAt: string | null;
  precision: Precision | null;
  /** The gateway account the body names (the driver's accountOf), or null. */
  account: string | null;
};

export type Normalization =
  { ok: true; event: NormalizedEvent; columns: NormalizedColumns } | { ok: false; error: string; columns: NormalizedColumns };

/** The event type of a signed body no driver rule could read. */
export const UNPARSEABLE_TYPE = "unparseable";

/**
 * The value as jsonb text, or null when jsonb would refuse it (a NUL or a lone surrogate in any
 * string or key). Walks with an explicit stack: depth was capped before parsing, but a walk must
 * not be what overflows.
 */
export function jsonbText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") {
      if (!isStorableText(item)) return null;
    } else if (Array.isArray(item)) {
      stack.push(...item);
    } else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return null;
        stack.push(child);
      }
    }
  }
  return JSON.stringify(value);
}

function unparseable(raw: Buffer, error: string): Normalization {
  return {
    ok: false,
    error,
    columns: {
      eventId: rawBodyKey(raw),
      eventIdDerived: true,
      type: UNPARSEABLE_TYPE,
      resourceId: null,
      customerId: null,
      customerEmail: null,
      payload: null,
      occurredAt: null,
      precision: null,
      account: null,
    },
  };
}

// A driver that throws anything on signed bytes (a RangeError from an out-of-range time, a bug) must
// not turn into a 500 the gateway retries for days: the body is stored as failed with the reason.
function failureReason(error: unknown): string {
  const text = error instanceof Error ? (error.name === "ParseError" ? error.message : `${error.name}: ${error.message}`) : String(error);
  return storableText(text.slice(0, 500));
}

/** The first text column PostgreSQL could not store, by name. */
function unstorableColumn(event: NormalizedEvent): string | null {
  const columns: Record<string, string | null | undefined> = {
    "event id": event.eventId,
    "event type": event.type,
    "resource id": event.resourceId,
    "customer id": event.customerId,
    "customer e-mail": event.customerEmail,
    "charge customer id": event.charge?.customerId,
    "charge customer e-mail": event.charge?.customerEmail,
    "charge currency": event.charge?.currency,
  };
  for (const [name, value] of Object.entries(columns)) {
    if (value !== null && value !== undefined && !isStorableText(value)) return name;
  }
  return null;
}

// An account name is what the console filters and the host reads; one that is not plain text of a
// sane length is not an account name, and the event stays the default account's.
function accountOf(driver: ProviderDriver, payload: unknown): string | null {
  const account = driver.accountOf?.(payload) ?? null;
  return account !== null && account.length <= 200 && isStorableText(account) ? account : null;
}

/**
 * The one way an event is normalized: driver parse, then the columns it stores (validated text,
 * lower-cased e-mail, a payload jsonb accepts). Never throws for a body's content.
 */
export function normalizeEvent(driver: ProviderDriver, raw: Buffer, context: ParseContext): Normalization {
  let event: NormalizedEvent;
  try {
    event = driver.parse(raw, context);
  } catch (error) {
    return unparseable(raw, failureReason(error));
  }
  const unstorable = unstorableColumn(event);
  if (unstorable) return unparseable(raw, `the ${unstorable} contains a NUL character or a lone UTF-16 surrogate`);
  return {
    ok: true,
    event,
    columns: {
      eventId: event.eventId,
      eventIdDerived: event.eventIdDerived,
      type: event.type,
      resourceId: event.resourceId,
      customerId: event.customerId,
      customerEmail: event.customerEmail?.toLowerCase() ?? null,
      payload: jsonbText(event.payload),
      occurredAt: event.occurredAt,
      precision: event.precision,
      account: accountOf(driver, event.payload),
    },
  };
}
