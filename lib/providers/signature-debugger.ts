import { createHmac } from "node:crypto";
import { z } from "zod";
import { parseSignatureHeader, stripeDriver } from "./stripe";
import { standardDriver, standardSecretKey } from "./standard";
import { safeEqual } from "../crypto/safe-equal";
import { timestampReason, withinTolerance } from "./signature";

// The signature debugger: given a payload, a secret and what the sender put in the signature
// header(s), says what is wrong: the header, the secret, the encoding, the algorithm, the signed
// content, or the timestamp. It tries the mistakes people actually make, one at a time, and names
// the first that reproduces the signature.

export const debugInputSchema = z.discriminatedUnion("provider", [
  z.object({
    provider: z.literal("stripe"),
    payload: z.string().max(1_048_576),
    secret: z.string().min(1).max(500),
    signatureHeader: z.string().max(4000),
  }),
  z.object({
    provider: z.literal("standard"),
    payload: z.string().max(1_048_576),
    secret: z.string().min(1).max(500),
    webhookId: z.string().max(200),
    webhookTimestamp: z.string().max(40),
    signatureHeader: z.string().max(4000),
  }),
]);
export type DebugInput = z.infer<typeof debugInputSchema>;

/** A field the debugger's form asks for beyond the payload, the secret and the signature header. */
type SchemeField = { name: "webhookId" | "webhookTimestamp"; label: string; size: number };

/** A scheme the debugger knows, as the console's form shows it. */
export type DebuggerScheme = {
  provider: DebugInput["provider"];
  label: string;
  signatureLabel: string;
  fields: SchemeField[];
};

/** The stored headers each of a scheme's inputs is filled from, first found first. */
type PrefillHeaders = { signatureHeader: string[] } & Partial<Record<SchemeField["name"], string[]>>;

const SCHEMES: (DebuggerScheme & { prefillFrom: PrefillHeaders })[] = [
  {
    provider: "stripe",
    label: `${stripeDriver.label} (Stripe-Signature)`,
    signatureLabel: "Stripe-Signature header",
    fields: [],
    prefillFrom: { signatureHeader: ["stripe-signature"] },
  },
  {
    provider: "standard",
    label: `${standardDriver.label} (webhook-*)`,
    signatureLabel: "webhook-signature header",
    fields: [
      { name: "webhookId", label: "webhook-id", size: 34 },
      { name: "webhookTimestamp", label: "webhook-timestamp", size: 14 },
    ],
    prefillFrom: {
      signatureHeader: ["webhook-signature", "svix-signature"],
      webhookId: ["webhook-id", "svix-id"],
      webhookTimestamp: ["webhook-timestamp", "svix-timestamp"],
    },
  },
];

/** The schemes the debugger knows, the first one the form's default. */
export const DEBUGGER_SCHEMES: readonly DebuggerScheme[] = SCHEMES.map(({ prefillFrom: _prefill, ...scheme }) => scheme);

/** What a rejected delivery fills the form with: its gateway's scheme (or the default) and its inputs from the stored headers. */
export type DebuggerPrefill = { provider: DebugInput["provider"]; values: Record<string, string> };

export function debuggerPrefill(provider: string, headers: Record<string, string>): DebuggerPrefill {
  const scheme = SCHEMES.find((candidate) => candidate.provider === provider) ?? SCHEMES[0]!;
  const values = Object.fromEntries(
    Object.entries(scheme.prefillFrom).map(([input, names]) => [input, names.map((name) => headers[name]).find(Boolean) ?? ""]),
  );
  return { provider: scheme.provider, values };
}

export type Verdict = "valid" | "header" | "secret" | "encoding" | "algorithm" | "payload" | "timestamp";
export type Diagnosis = { verdict: Verdict; ok: boolean; message: string };

type Algorithm = "sha256" | "sha1" | "sha512";
type Encoding = "hex" | "base64";

function mac(algorithm: Algorithm, key: string | Buffer, content: string, encoding: Encoding): string {
  return createHmac(algorithm, key).update(content).digest(encoding);
}

/** A candidate mistake: how the sender may have computed the signature, and what to tell them. */
type Hypothesis = { key: string | Buffer; content: string; algorithm: Algorithm; encoding: Encoding; verdict: Verdict; message: string };

function reserialized(payload: string): string[] {
  const variants = new Set<string>([payload.trim(), `${payload}\n`, payload.replace(/\r\n/g, "\n")]);
  try {
    const parsed: unknown = JSON.parse(payload);
    variants.add(JSON.stringify(parsed));
    variants.add(JSON.stringify(parsed, null, 2));
  } catch {
    // not JSON: only whitespace variants
  }
  variants.delete(payload);
  return [...variants];
}

/** The re-encoded or re-spaced copies of the payload, signed the right way otherwise. */
function reencodedPayloads(correct: Hypothesis, signedPrefix: string, payload: string): Hypothesis[] {
  return reserialized(payload).map((variant) => ({
    ...correct,
    content: `${signedPrefix}${variant}`,
    verdict: "payload" as const,
    message: "The signature matches a re-encoded or re-spaced copy of this payload: verify the raw bytes exactly as received.",
  }));
}

/**
 * A secret pasted with spaces or a newline around it is the same secret, not a different one: if
 * the trimmed secret reproduces the signature, say so. (Standard Webhooks keys are base64-decoded,
 * which skips whitespace, so only Stripe's text keys need this.)
 */
function whitespaceHypothesis(correct: Hypothesis, secret: string): Hypothesis[] {
  const trimmed = secret.trim();
  if (trimmed === secret || trimmed === "") return [];
  return [
    {
      ...correct,
      key: trimmed,
      verdict: "secret",
      message:
        "The secret entered has leading or trailing whitespace (a space or newline from copying it); without it, the signature matches. Remove the whitespace where the secret is configured.",
    },
  ];
}

/** The first mistake that reproduces the signature, or the verdict that none does. */
function conclude(signatures: string[], hypotheses: Hypothesis[], noneMatches: string): Diagnosis {
  const match = firstMatch(signatures, hypotheses);
  return match ? { verdict: match.verdict, ok: false, message: match.message } : { verdict: "secret", ok: false, message: noneMatches };
}

function firstMatch(signatures: string[], hypotheses: Hypothesis[]): Hypothesis | undefined {
  return hypotheses.find((hypothesis) => {
    const computed = mac(hypothesis.algorithm, hypothesis.key, hypothesis.content, hypothesis.encoding);
    return signatures.some((signature) => safeEqual(signature, computed) || safeEqual(signature.toLowerCase(), computed));
  });
}

function timestampVerdict(timestamp: number, nowSeconds: number, toleranceSeconds: number, signedCorrectly: string): Diagnosis {
  if (timestamp > 1e12) {
    return { verdict: "timestamp", ok: false, message: `${signedCorrectly}, but the timestamp is in milliseconds: send Unix seconds.` };
  }
  if (!withinTolerance(timestamp, nowSeconds, toleranceSeconds)) {
    return {
      verdict: "timestamp",
      ok: false,
      message: `${signedCorrectly}, but the ${timestampReason(timestamp, nowSeconds)} (${toleranceSeconds}s).`,
    };
  }
  return {
    verdict: "valid",
    ok: true,
    message: `${signedCorrectly}, and the timestamp is within ${toleranceSeconds}s of now: the inbox would accept it.`,
  };
}

function diagnoseStripe(input: Extract<DebugInput, { provider: "stripe" }>, nowSeconds: number, toleranceSeconds: number): Diagnosis {
  const { timestamp, signatures } = parseSignatureHeader(input.signatureHeader);
  if (timestamp === null || signatures.length === 0) {
    return {
      verdict: "header",
      ok: false,
      message: "The header must look like `t=<unix seconds>,v1=<hex signature>` (several v1= allowed).",
    };
  }
  const { payload, secret } = input;
  const signed = `${timestamp}.${payload}`;
  const correct: Hypothesis = { key: secret, content: signed, algorithm: "sha256", encoding: "hex", verdict: "valid", message: "" };
  if (firstMatch(signatures, [correct])) {
    return timestampVerdict(timestamp, nowSeconds, toleranceSeconds, "The signature matches the secret and the payload");
  }
  const decoded = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : null;
  const hypotheses: Hypothesis[] = [
    ...whitespaceHypothesis(correct, secret),
    { ...correct, encoding: "base64", verdict: "encoding", message: "The signature is base64; Stripe's v1 is the lowercase hex digest." },
    { ...correct, algorithm: "sha1", verdict: "algorithm", message: "The signature is HMAC-SHA1; Stripe uses HMAC-SHA256." },
    { ...correct, algorithm: "sha512", verdict: "algorithm", message: "The signature is HMAC-SHA512; Stripe uses HMAC-SHA256." },
    ...(decoded
      ? [
          {
            ...correct,
            key: decoded,
            verdict: "secret" as const,
            message: "The key was the base64-decoded secret; Stripe keys the HMAC with the whole whsec_... string as text.",
          },
        ]
      : []),
    ...(secret.startsWith("whsec_")
      ? [
          {
            ...correct,
            key: secret.slice(6),
            verdict: "secret" as const,
            message: "The key was the secret without its whsec_ prefix; use the whole string.",
          },
        ]
      : []),
    {
      ...correct,
      content: payload,
      verdict: "payload",
      message: 'Only the body was signed; Stripe signs "{t}.{body}" (the timestamp, a dot, then the raw body).',
    },
    ...reencodedPayloads(correct, `${timestamp}.`, payload),
  ];
  return conclude(
    signatures,
    hypotheses,
    "No common mistake reproduces the signature: the payload was signed with a different secret, or changed after signing.",
  );
}

function diagnoseStandard(input: Extract<DebugInput, { provider: "standard" }>, nowSeconds: number, toleranceSeconds: number): Diagnosis {
  const signatures = input.signatureHeader
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => entry.slice(3));
  if (!input.webhookId || !/^\d+$/.test(input.webhookTimestamp) || signatures.length === 0) {
    return {
      verdict: "header",
      ok: false,
      message:
        "Needs webhook-id, webhook-timestamp (integer Unix seconds) and webhook-signature as a space-separated list of `v1,<base64>`.",
    };
  }
  const { payload, secret, webhookId } = input;
  const timestamp = Number(input.webhookTimestamp);
  const signed = `${webhookId}.${input.webhookTimestamp}.${payload}`;
  const key = standardSecretKey(secret);
  const correct: Hypothesis = { key, content: signed, algorithm: "sha256", encoding: "base64", verdict: "valid", message: "" };
  if (firstMatch(signatures, [correct])) {
    return timestampVerdict(timestamp, nowSeconds, toleranceSeconds, "The signature matches the secret and the payload");
  }
  const hypotheses: Hypothesis[] = [
    { ...correct, encoding: "hex", verdict: "encoding", message: "The signature is hex; Standard Webhooks uses base64 after `v1,`." },
    { ...correct, algorithm: "sha1", verdict: "algorithm", message: "The signature is HMAC-SHA1; the spec uses HMAC-SHA256." },
    { ...correct, algorithm: "sha512", verdict: "algorithm", message: "The signature is HMAC-SHA512; the spec uses HMAC-SHA256." },
    {
      ...correct,
      key: secret,
      verdict: "secret",
      message: "The key was the secret string as text; the key is the base64-decoded part after whsec_.",
    },
    ...(secret.startsWith("whsec_")
      ? [
          {
            ...correct,
            key: secret.slice(6),
            verdict: "secret" as const,
            message: "The key was the base64 text after whsec_ without decoding it; decode it first.",
          },
        ]
      : []),
    {
      ...correct,
      content: payload,
      verdict: "payload",
      message: 'Only the body was signed; the spec signs "{webhook-id}.{webhook-timestamp}.{body}".',
    },
    {
      ...correct,
      content: `${input.webhookTimestamp}.${payload}`,
      verdict: "payload",
      message: 'The webhook-id was left out of the signed content: sign "{id}.{timestamp}.{body}".',
    },
    ...reencodedPayloads(correct, `${webhookId}.${input.webhookTimestamp}.`, payload),
  ];
  return conclude(
    signatures,
    hypotheses,
    "No common mistake reproduces the signature: the payload was signed with a different secret, or changed after signing (or the id/timestamp differ).",
  );
}

export function diagnoseSignature(input: DebugInput, nowSeconds: number, toleranceSeconds: number): Diagnosis {
  return input.provider === "stripe"
    ? diagnoseStripe(input, nowSeconds, toleranceSeconds)
    : diagnoseStandard(input, nowSeconds, toleranceSeconds);
}
