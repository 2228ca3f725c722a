// What a viewer sees of customer data: enough to tell records apart, not enough to identify anyone.

const EMAIL = /[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}/gi;
const HAS_EMAIL = /[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}/i;
// Keys whose values identify a person or a card, whatever the gateway calls them.
const PII_KEY = /(e-?mail|name|phone|address|street|city|zip|postal|document|cpf|cnpj|tax_?id|birth|ip_?address|card|last4|fingerprint|holder|customer|billing|shipping)/i;

export function maskEmail(email: string): string {
  const [local = "", domain = ""] = email.split("@");
  return `${local.slice(0, 1)}***@${domain.slice(0, 1)}***`;
}

function maskString(value: string): string {
  if (value.length === 0) return value;
  return value.length <= 4 ? "***" : `${value.slice(0, 2)}***`;
}

function maskScalar(value: unknown): unknown {
  if (typeof value === "string") return HAS_EMAIL.test(value) ? value.replace(EMAIL, maskEmail) : maskString(value);
  if (typeof value === "number") return 0;
  return value;
}

/**
 * A copy of a JSON value with personal data masked: every value under a personal-data key (deeply),
 * and e-mail addresses anywhere.
 */
export function maskPii(value: unknown, underPiiKey = false): unknown {
  if (Array.isArray(value)) return value.map((item) => maskPii(item, underPiiKey));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskPii(item, underPiiKey || PII_KEY.test(key))]));
  }
  if (underPiiKey) return maskScalar(value);
  return typeof value === "string" ? value.replace(EMAIL, maskEmail) : value;
}

/** Masks e-mail addresses in free text (raw bodies, headers, errors). */
export function maskText(text: string): string {
  return text.replace(EMAIL, maskEmail);
}
