import { z } from "zod";
import type { Pool } from "../db/pool";
import { AppError } from "../errors/app-error";
import { findArchivedEvents, readArchivedBodies } from "../inbox/erasure/find-archived-events";
import { REDACTED, identifierHash, normalIdentifier, numberDigits, personalValues } from "../providers/personal-data";
import { PROVIDER_NAMES, findDriver } from "../providers/registry";

// Who a request is about, and where the inbox holds them. A subject is named by one identifier (an
// e-mail, a gateway's customer id, a document: CPF/CNPJ); the rows that name it name the others
// (the customer id beside the e-mail, the CPF in the payload), which are followed once more, and
// every event of a payment of theirs is theirs too (a refund notice names no customer).

export const subjectSchema = z
  .object({
    email: z.string().trim().min(3).max(320).optional(),
    customerId: z.string().trim().min(1).max(150).optional(),
    document: z.string().trim().min(11).max(40).optional(),
    provider: z.enum(PROVIDER_NAMES).optional(),
  })
  .refine((subject) => [subject.email, subject.customerId, subject.document].filter(Boolean).length === 1, {
    message: "name the subject by exactly one of email, customerId or document",
  });
export type Subject = z.infer<typeof subjectSchema>;

export type SubjectKind = "email" | "customerId" | "document";

export function subjectIdentifier(subject: Subject): { kind: SubjectKind; value: string } {
  if (subject.email) return { kind: "email", value: subject.email };
  if (subject.customerId) return { kind: "customerId", value: subject.customerId };
  return { kind: "document", value: subject.document! };
}

/** The keyed hash of the identifier a request named: what the audit log and the erasure row keep. */
export function subjectHash(hashKey: string, subject: Subject): string {
  const { kind, value } = subjectIdentifier(subject);
  return identifierHash(hashKey, `${kind}:${subject.provider ?? ""}:${value}`);
}

export function requireHashKey(hashKey: string | undefined): string {
  if (!hashKey) throw new AppError("NOT_CONFIGURED", "set PRIVACY_HASH_KEY (or AUTH_SECRET): erasures keep keyed hashes of identifiers");
  return hashKey;
}

/** Where a subject is stored: what an export lists and an erasure changes (and resumes from). */
export type SubjectScope = {
  /** Every identifier found: e-mails, customer ids, documents, and the names, phones and addresses their bodies hold. */
  identifiers: string[];
  /** The identifiers a later delivery is recognized by (e-mails, customer ids, documents, phones). */
  keys: string[];
  paymentIds: number[];
  /** Events whose body is in the row. */
  liveEventIds: number[];
  /** Events whose body is in a retention archive, by archive file. */
  archived: Record<string, number[]>;
  /** Events of archived partitions (only their archive file holds them), by partition. */
  partitions: Record<string, number[]>;
};

/** Where the subject is looked for: the database and the archive files. */
export type SubjectStore = { pool: Pool; archiveDir: string };

type PaymentHit = { id: number; provider: string; gateway_charge_id: string; customer_id: string | null; customer_email: string | null };
type EventHit = {
  id: number;
  provider: string;
  resource_id: string | null;
  customer_id: string | null;
  customer_email: string | null;
  archive_file: string | null;
  payload: unknown;
  partition?: string | null;
};

const EVENT_COLUMNS = "w.id, w.provider, w.resource_id, w.customer_id, w.customer_email, w.archive_file, w.payload";
const isEmail = (value: string) => value.includes("@");

/**
 * The documents a search has read the inbox's bodies for, in every row up to `throughInboxId`
 * (`waitForInboxWriters`' id from before it began): looking again for those, only later rows are read.
 */
export type BodiesRead = { documents: string[]; throughInboxId: number };

async function findRound(
  store: SubjectStore,
  emails: string[],
  customerIds: string[],
  documents: string[],
  provider: string | null,
  read: BodiesRead | undefined,
) {
  const db = store.pool;
  const payments = new Map<number, PaymentHit>();
  const events = new Map<number, EventHit>();
  const addPayments = (rows: PaymentHit[]) => rows.forEach((row) => payments.set(row.id, row));
  // A row found again keeps the body an archive file gave it (the row's own payload is gone).
  const addEvents = (rows: EventHit[]) =>
    rows.forEach((row) => events.set(row.id, events.get(row.id)?.payload != null && row.payload == null ? events.get(row.id)! : row));
  const lowered = [...new Set(emails.map((email) => email.toLowerCase()))];
  const byEmail = [...new Set([...emails, ...lowered])];
  const PAYMENT_COLUMNS = "p.id, p.provider, p.gateway_charge_id, p.customer_id, p.customer_email";
  addPayments(
    (
      await db.query<PaymentHit>(
        `SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.customer_email = ANY($1::text[])
         UNION SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.customer_id = ANY($2::text[]) AND ($3::text IS NULL OR p.provider = $3)`,
        [lowered, customerIds, provider],
      )
    ).rows,
  );
  addEvents(
    (
      await db.query<EventHit>(
        `SELECT ${EVENT_COLUMNS} FROM webhook_inbox w WHERE w.customer_email = ANY($1::text[])
         UNION ALL SELECT ${EVENT_COLUMNS} FROM webhook_inbox w WHERE w.customer_id = ANY($2::text[]) AND ($3::text IS NULL OR w.provider = $3)`,
        [byEmail, customerIds, provider],
      )
    ).rows,
  );
  // A document is only in bodies: the one search that reads every stored payload. One read before
  // for every row up to `read.throughInboxId` is looked for only in the rows stored since.
  const readBefore = new Set(read?.documents ?? []);
  const unread = documents.filter((document) => !readBefore.has(document));
  const readAgain = documents.filter((document) => readBefore.has(document));
  const patterns = (named: string[]) => named.flatMap((document) => [`%${document}%`, `%${normalIdentifier(document)}%`]);
  const naming = "w.payload IS NOT NULL AND w.payload::text LIKE ANY($1::text[])";
  if (unread.length > 0)
    addEvents((await db.query<EventHit>(`SELECT ${EVENT_COLUMNS} FROM webhook_inbox w WHERE ${naming}`, [patterns(unread)])).rows);
  if (readAgain.length > 0) {
    const { rows } = await db.query<EventHit>(`SELECT ${EVENT_COLUMNS} FROM webhook_inbox w WHERE w.id > $2 AND ${naming}`, [
      patterns(readAgain),
      read!.throughInboxId,
    ]);
    addEvents(rows);
  }
  // The payments of those events, and every event of those payments.
  const addPaymentsOf = async (of: { provider: string; resource_id: string | null }[]) => {
    const charges = of.filter((event) => event.resource_id !== null);
    const { rows } = await db.query<PaymentHit>(
      `SELECT ${PAYMENT_COLUMNS} FROM payments p JOIN unnest($1::text[], $2::text[]) AS c(provider, charge)
          ON p.provider = c.provider AND p.gateway_charge_id = c.charge`,
      [charges.map((event) => event.provider), charges.map((event) => event.resource_id)],
    );
    addPayments(rows);
  };
  await addPaymentsOf([...events.values()]);
  // What only the archive files hold: archived months, and documents inside retention archives' bodies.
  // A row is archived days after it was stored (RETENTION_DAYS >= 1): none stored since a document
  // was read for is in an archive, so the files are read again only for the unread ones.
  const archived = await findArchivedEvents(store, {
    emails,
    customerIds,
    provider,
    documents: unread,
    charges: [...payments.values()].map((payment) => ({ provider: payment.provider, chargeId: payment.gateway_charge_id })),
  });
  addEvents(archived);
  await addPaymentsOf(archived);
  const known = [...payments.values()];
  addEvents(
    (
      await db.query<EventHit>(
        `SELECT ${EVENT_COLUMNS} FROM webhook_inbox w JOIN unnest($1::text[], $2::text[]) AS c(provider, charge)
            ON w.provider = c.provider AND w.resource_id = c.charge`,
        [known.map((payment) => payment.provider), known.map((payment) => payment.gateway_charge_id)],
      )
    ).rows,
  );
  await readArchivedBodies(store.archiveDir, events.values());
  return { payments, events };
}

/** Finds the subject (searchSubject): what an export lists, a dry run counts and an erasure starts from. */
export async function findSubject(store: SubjectStore, subject: Subject): Promise<SubjectScope> {
  return (await searchSubject(store, subject)).scope;
}

/**
 * Finds the subject: two rounds, the second with the identifiers the first one's rows named (the
 * e-mails and customer ids beside it, the documents and whole phones in their bodies: those single
 * the person out, so a delivery naming only their CPF is theirs too). `known` adds keys found
 * before (an erasure looking again for what was stored meanwhile), `read` the documents whose
 * bodies were read then. Also says which documents it read bodies for: one found in its last
 * round's rows is a key, but no body was searched for it yet.
 */
export async function searchSubject(
  store: SubjectStore,
  subject: Subject,
  earlier: { known?: readonly string[]; read?: BodiesRead } = {},
): Promise<{ scope: SubjectScope; documentsRead: string[] }> {
  const known = earlier.known ?? [];
  const { kind, value } = subjectIdentifier(subject);
  const emails = new Set([...(kind === "email" ? [value] : []), ...known.filter(isEmail)]);
  // A known key is looked for as what it may be: a numeric one is a document, a phone or a customer id.
  const customerIds = new Set([...(kind === "customerId" ? [value] : []), ...known.filter((key) => !isEmail(key))]);
  const documents = new Set([...(kind === "document" ? [value] : []), ...known.filter((key) => numberDigits(key) !== null)]);
  const others = new Set<string>();
  const documentsRead = new Set(documents);
  let found = await findRound(
    store,
    [...emails],
    [...customerIds],
    [...documents],
    known.length > 0 ? null : (subject.provider ?? null),
    earlier.read,
  );
  for (let round = 0; round < 2; round += 1) {
    const before = emails.size + customerIds.size + documents.size;
    for (const row of [...found.payments.values(), ...found.events.values()]) {
      if (row.customer_email && row.customer_email !== REDACTED) emails.add(row.customer_email);
      if (row.customer_id && row.customer_id !== REDACTED) customerIds.add(row.customer_id);
    }
    for (const event of found.events.values()) {
      for (const personal of personalValues(event.payload, findDriver(event.provider)?.personalData ?? [])) {
        if (personal.trim().length < 5 || personal === REDACTED) continue;
        if (isEmail(personal)) emails.add(personal);
        else if (numberDigits(personal) !== null) documents.add(personal);
        else others.add(personal);
      }
    }
    if (round === 1 || emails.size + customerIds.size + documents.size === before) break;
    documents.forEach((document) => documentsRead.add(document));
    found = await findRound(store, [...emails], [...customerIds], [...documents], null, earlier.read);
  }
  const identifiers = [...new Set([...emails, ...customerIds, ...documents, ...others])];
  const archived: Record<string, number[]> = {};
  const partitions: Record<string, number[]> = {};
  const liveEventIds: number[] = [];
  for (const event of found.events.values()) {
    if (event.partition) (partitions[event.partition] ??= []).push(Number(event.id));
    else if (event.archive_file === null) liveEventIds.push(event.id);
    else (archived[event.archive_file] ??= []).push(event.id);
  }
  return {
    scope: {
      identifiers,
      keys: [...new Set([...emails, ...customerIds, ...documents])],
      paymentIds: [...found.payments.keys()].sort((a, b) => a - b),
      liveEventIds: liveEventIds.sort((a, b) => a - b),
      archived,
      partitions,
    },
    documentsRead: [...documentsRead],
  };
}

/** Is there anything stored about the subject? */
export const isEmptyScope = (scope: SubjectScope) =>
  scope.paymentIds.length === 0 &&
  scope.liveEventIds.length === 0 &&
  Object.keys(scope.archived).length === 0 &&
  Object.keys(scope.partitions ?? {}).length === 0;
