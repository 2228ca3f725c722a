import { MASKED } from "../privacy/mask-pii";
import { storableText } from "../request/storable-text";

/** Headers as an attempt stores them: names lower-cased, values as sent or answered (or masked). */
export type AttemptHeaders = Record<string, string>;

const MAX_HEADERS = 40;
const MAX_NAME = 100;
const MAX_VALUE = 300;

// A signature is derived from the destination's secret, and answers can carry credentials (cookies,
// tokens): their values are masked before they are stored, so no page or export can show them.
const SECRET_HEADER = /signature|authorization|cookie|token|secret|api-?key|session/i;

/**
 * The headers kept of one request or answer (storable text): at most 40, each value cut at 300
 * characters, secret ones masked. `webhook-signature` keeps its scheme (`v1,***`), so the inspector still shows how many
 * keys signed it (two during a rotation).
 */
export function storedHeaders(headers: Record<string, string | string[] | undefined>): AttemptHeaders {
  const kept: AttemptHeaders = {};
  for (const [rawName, rawValue] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (rawValue === undefined) continue;
    const name = storableText(rawName.toLowerCase().slice(0, MAX_NAME));
    const value = storableText(Array.isArray(rawValue) ? rawValue.join(", ") : rawValue);
    if (name === "webhook-signature") kept[name] = value.replace(/(v\d+[a-z]?,)\S+/g, `$1${MASKED}`).slice(0, MAX_VALUE);
    else kept[name] = SECRET_HEADER.test(name) ? MASKED : value.slice(0, MAX_VALUE);
  }
  return kept;
}
