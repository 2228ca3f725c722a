// PostgreSQL's text and jsonb refuse NUL, and a lone UTF-16 surrogate is not UTF-8: a string with
// either fails the whole statement. Checked wherever outside text meets the database.

// A UTF-16 surrogate without its pair (String#isWellFormed is ES2024, past this project's lib).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL can store: no NUL (text and jsonb refuse it) and no lone UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

/** `text` made storable: NULs spelled out, lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", "\\0").replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD");
}
