"use client";

import { useState, useTransition } from "react";
import { StatusBadge } from "@/app/_components/status-badge";
import type { SignaturesView } from "@/lib/console/get-signatures-view";
import { debugSignature } from "./actions";

type Diagnosis = { verdict: string; ok: boolean; message: string };

const VERDICT_WORDS: Record<string, string> = {
  header: "header problem",
  secret: "secret problem",
  encoding: "encoding problem",
  algorithm: "wrong algorithm",
  payload: "payload changed",
  timestamp: "timestamp problem",
};

export function SignatureDebugger({ schemes, prefill }: { schemes: SignaturesView["schemes"]; prefill: SignaturesView["prefill"] }) {
  const [provider, setProvider] = useState(prefill?.provider ?? schemes[0]!.provider);
  const scheme = schemes.find((candidate) => candidate.provider === provider) ?? schemes[0]!;
  const [result, setResult] = useState<Diagnosis | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <form
      method="post"
      className="panel"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => String(form.get(name) ?? "");
        const input = {
          provider: scheme.provider,
          payload: text("payload"),
          secret: text("secret"),
          signatureHeader: text("signatureHeader"),
          ...Object.fromEntries(scheme.fields.map((field) => [field.name, text(field.name)])),
        };
        startTransition(async () => {
          const answer = await debugSignature(input);
          if (answer.ok) {
            setResult(answer.data);
            setError(null);
          } else {
            setError(answer.error);
            setResult(null);
          }
        });
      }}
    >
      {prefill?.truncated ? (
        <p className="banner warn">The stored body was truncated to its first 2 KiB: paste the full payload for a conclusive answer.</p>
      ) : null}
      <div className="row">
        <label>
          Scheme
          <select
            value={scheme.provider}
            onChange={(event) => setProvider(event.target.value as SignaturesView["schemes"][number]["provider"])}
            name="provider"
          >
            {schemes.map((option) => (
              <option key={option.provider} value={option.provider}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label style={{ flex: 1 }}>
          Secret
          <input name="secret" type="password" autoComplete="off" required placeholder="whsec_…" />
        </label>
      </div>
      {scheme.fields.length > 0 ? (
        <div className="row">
          {scheme.fields.map((field) => (
            <label key={field.name}>
              {field.label}
              <input name={field.name} defaultValue={prefill?.values[field.name]} required size={field.size} />
            </label>
          ))}
        </div>
      ) : null}
      <label>
        {scheme.signatureLabel}
        <input name="signatureHeader" defaultValue={prefill?.values.signatureHeader} required />
      </label>
      <label>
        Payload (the raw body, exactly as sent)
        <textarea name="payload" rows={8} defaultValue={prefill?.payload} required />
      </label>
      <p>
        <button className="primary" type="submit" disabled={pending}>
          {pending ? "Checking…" : "Check signature"}
        </button>
      </p>
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      {result ? (
        <div role="status" className={`banner ${result.ok ? "ok" : "bad"}`} data-testid="diagnosis">
          <StatusBadge status={result.ok ? "valid" : "invalid"} /> {result.ok ? null : <strong>{VERDICT_WORDS[result.verdict]}: </strong>}
          {result.message}
        </div>
      ) : null}
    </form>
  );
}
