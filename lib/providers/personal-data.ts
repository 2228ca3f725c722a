import { REDACTED } from "../canonical/redacted";
import { hmac } from "../crypto/digest";

// What in a gateway's payload is a person: each driver declares the paths of its bodies that carry a
// customer's name, e-mail, document (CPF/CNPJ), phone, address or birth date (ProviderDriver.
// personalData). Erasure and PII_AT_REST=redact replace what those paths hold, and any text that
// names one of a subject's identifiers wherever it sits, with REDACTED. The customer's id is not on
// the lists: it is the key the inbox searches and settles by, redacted only when its customer is erased.

export { REDACTED };

/**
 * Dot-separated keys from the body's root; `*` stands for any key or array index. A path names a
 * field (its value is redacted) or an object (every value under it is), e.g. `data.customer.phones`.
 */
export type PersonalDataPath = string;

/** What a redaction replaces besides the declared paths: these identifiers, wherever they appear in a string. */
export type RedactionTarget = { paths: readonly PersonalDataPath[]; identifiers: readonly string[] };

export type Redaction = { value: unknown; changed: number };

/**
 * The digits of a document (CPF 11, CNPJ 14) or a whole phone number (area code included: 10 or
 * more digits), written with its punctuation or without ("390.533.447-05", "+55 (11) 97654-3210");
 * null for anything else, a zip code (8 digits) or a local phone number included: those are shared
 * by many people and name nobody.
 */
export function numberDigits(text: string): string | null {
  const trimmed = text.trim();
  if (!/^[\d\s./()+-]+$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, "");
  return digits.length >= 10 ? digits : null;
}

/** Does this value single its person out (an e-mail, a document, a whole phone number), so that a later delivery naming it is theirs? */
export const isSubjectKey = (value: string) => value.includes("@") || numberDigits(value) !== null;

// Identifiers are matched case-insensitively (e-mails are), and a document or phone by its digits as
// well as as written (a CPF is sent as 123.456.789-09 by one gateway and 12345678909 by the next).
function identifierPattern(identifiers: readonly string[]): RegExp | null {
  const forms = new Set<string>();
  for (const identifier of identifiers) {
    const trimmed = identifier.trim();
    if (trimmed.length < 3 || trimmed === REDACTED) continue;
    forms.add(trimmed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const digits = numberDigits(trimmed);
    // Written with its punctuation or without: digit by digit, with at most two separators between.
    if (digits !== null) forms.add(digits.split("").join("[\\s./()-]{0,2}"));
  }
  if (forms.size === 0) return null;
  return new RegExp([...forms].sort((a, b) => b.length - a.length).join("|"), "giu");
}

/**
 * The identifiers as one regular expression (what redactText replaces), for PostgreSQL's `~*` to
 * find the rows that name one of them; null when there is none to look for.
 */
export function identifierRegexSource(identifiers: readonly string[]): string | null {
  return identifierPattern(identifiers)?.source ?? null;
}

/** `text` with every occurrence of an identifier replaced, and how many there were. */
export function redactText(text: string, identifiers: readonly string[]): { text: string; changed: number } {
  const pattern = identifierPattern(identifiers);
  if (!pattern) return { text, changed: 0 };
  let changed = 0;
  const redacted = text.replace(pattern, () => {
    changed += 1;
    return REDACTED;
  });
  return { text: redacted, changed };
}

const splitPath = (path: PersonalDataPath) => path.split(".").filter((segment) => segment.length > 0);

/**
 * A copy of a JSON value with the declared paths' values and every occurrence of the identifiers
 * replaced by REDACTED, and how many values changed. Walks with an explicit stack (a deep body must
 * not overflow). Numbers and strings under a declared path become REDACTED; booleans and nulls stay.
 */
export function redactPayload(value: unknown, target: RedactionTarget): Redaction {
  const pattern = identifierPattern(target.identifiers);
  const paths = target.paths.map(splitPath);
  let changed = 0;
  type Frame = { source: unknown; matching: string[][]; under: boolean; assign: (redacted: unknown) => void };
  let result: unknown;
  const stack: Frame[] = [{ source: value, matching: paths, under: false, assign: (redacted) => (result = redacted) }];
  while (stack.length > 0) {
    const { source, matching, under, assign } = stack.pop()!;
    const covered = under || matching.some((path) => path.length === 0);
    if (source === null || typeof source === "boolean") {
      assign(source);
    } else if (typeof source === "number") {
      if (covered) changed += 1;
      assign(covered ? REDACTED : source);
    } else if (typeof source === "string") {
      if (covered) {
        if (source !== REDACTED) changed += 1;
        assign(REDACTED);
      } else if (pattern) {
        pattern.lastIndex = 0;
        const redacted = source.replace(pattern, () => REDACTED);
        if (redacted !== source) changed += 1;
        assign(redacted);
      } else {
        assign(source);
      }
    } else if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      assign(copy);
      source.forEach((item, index) => {
        stack.push({
          source: item,
          matching: descend(matching, String(index)),
          under: covered,
          assign: (redacted) => (copy[index] = redacted),
        });
      });
    } else if (typeof source === "object") {
      // The keys in their order before the stack (which pops them last first) fills them in.
      const entries = Object.entries(source as Record<string, unknown>);
      const copy: Record<string, unknown> = Object.fromEntries(entries.map(([key]) => [key, null]));
      assign(copy);
      for (const [key, item] of entries) {
        stack.push({ source: item, matching: descend(matching, key), under: covered, assign: (redacted) => (copy[key] = redacted) });
      }
    } else {
      assign(source);
    }
  }
  return { value: result, changed };
}

function descend(paths: string[][], key: string): string[][] {
  const next: string[][] = [];
  for (const path of paths) {
    if (path.length > 0 && (path[0] === "*" || path[0] === key)) next.push(path.slice(1));
  }
  return next;
}

/** Each value the declared paths hold in `value`, with where (dot-separated keys and indexes): what a subject's export shows. */
export function personalEntries(value: unknown, paths: readonly PersonalDataPath[]): { path: string; value: string | number }[] {
  const found: { path: string; value: string | number }[] = [];
  type Frame = { source: unknown; at: string; matching: string[][]; under: boolean };
  const stack: Frame[] = [{ source: value, at: "", matching: paths.map(splitPath), under: false }];
  const child = (at: string, key: string) => (at === "" ? key : `${at}.${key}`);
  // A child no declared path reaches (most of a body) is never stacked: this runs on every delivery.
  const visit = (source: unknown, at: string, key: string, covered: boolean, matching: string[][]) => {
    const next = covered ? matching : descend(matching, key);
    if (covered || next.length > 0) stack.push({ source, at: child(at, key), matching: next, under: covered });
  };
  while (stack.length > 0) {
    const { source, at, matching, under } = stack.pop()!;
    const covered = under || matching.some((path) => path.length === 0);
    if ((typeof source === "string" || typeof source === "number") && covered && source !== REDACTED)
      found.push({ path: at, value: source });
    else if (Array.isArray(source)) {
      source.forEach((item, index) => visit(item, at, String(index), covered, matching));
    } else if (source !== null && typeof source === "object") {
      for (const [key, item] of Object.entries(source as Record<string, unknown>)) visit(item, at, key, covered, matching);
    }
  }
  return found.reverse();
}

/** The strings the declared paths hold in `value` (the documents, e-mails, names and phones a body names). */
export function personalValues(value: unknown, paths: readonly PersonalDataPath[]): string[] {
  return personalEntries(value, paths)
    .map((entry) => entry.value)
    .filter((entry): entry is string => typeof entry === "string");
}

/** An identifier as it is hashed and compared: trimmed, lower-cased, a document or phone by its digits alone. */
export function normalIdentifier(identifier: string): string {
  return numberDigits(identifier) ?? identifier.trim().toLowerCase();
}

/** The keyed hash (HMAC-SHA256, hex) an erasure keeps of an identifier instead of the identifier. */
export function identifierHash(key: string, identifier: string): string {
  return hmac("sha256", key, "subject:", normalIdentifier(identifier)).toString("hex");
}

/** The values of a body that may name its subject: its customer columns and what the declared paths hold. */
export function subjectCandidates(
  columns: { customerId: string | null; customerEmail: string | null },
  values: readonly string[],
): string[] {
  const all = [columns.customerId, columns.customerEmail, ...values].filter(
    (value): value is string => typeof value === "string" && value.trim().length >= 3 && value !== REDACTED,
  );
  return [...new Set(all)];
}
