"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition, type FormEvent } from "react";
import type { ErasurePreview } from "@/lib/console/get-privacy-view";
import { exportSubject, previewErasure, startErasure } from "./actions";
import { ArchivesTable, CountsTable, ErasedPaymentsTable } from "./privacy-tables.client";

type Kind = "email" | "customerId" | "document";
type SubjectInput = { kind: Kind; value: string; provider?: string };
type ExportResult = { json: string; summary: Record<string, number> };

const KINDS: { kind: Kind; label: string }[] = [
  { kind: "email", label: "E-mail" },
  { kind: "customerId", label: "Customer id" },
  { kind: "document", label: "Document (CPF/CNPJ)" },
];

const SUMMARY_LABELS: Record<string, string> = {
  identifiers: "identifiers found",
  payments: "payments",
  events: "events",
  changes: "payment changes",
  deliveries: "deliveries",
  archiveEntries: "archived events",
  signatureFailures: "signature failures",
  mentions: "mentions by others",
};

/** The export as a file the admin keeps or sends to the subject; the object URL lives as long as the result. */
function ExportDownload({ json }: { json: string }) {
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [json]);
  return href ? (
    <a className="button" href={href} download={`subject-export-${new Date().toISOString().slice(0, 10)}.json`}>
      Download JSON
    </a>
  ) : null;
}

function ExportPanel({ result }: { result: ExportResult }) {
  return (
    <section className="panel" aria-labelledby="export-result">
      <div className="row">
        <h2 id="export-result">Export</h2>
        <span className="spacer" />
        <ExportDownload json={result.json} />
      </div>
      <div className="stat-grid compact" data-testid="export-summary">
        {Object.entries(result.summary).map(([name, count]) => (
          <div key={name} className="stat" data-count={name}>
            <div className="value">{count}</div>
            <div className="label">{SUMMARY_LABELS[name] ?? name}</div>
          </div>
        ))}
      </div>
      <p className="muted">
        Mentions by others are audit entries, bulk replays and processing errors that name them. Audited as privacy_export, with a keyed
        hash of the identifier.
      </p>
      <details>
        <summary>The JSON</summary>
        <pre className="raw" data-testid="export-json">
          {result.json}
        </pre>
      </details>
    </section>
  );
}

function DryRunPanel({ subject, preview }: { subject: SubjectInput; preview: ErasurePreview }) {
  const router = useRouter();
  const [confirmation, setConfirmation] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const typed = confirmation.trim();
  const confirmed = typed === "ERASE" || typed === subject.value.trim();
  const nothing = Object.values(preview.counts).every((count) => count === 0);
  return (
    <section className="panel" aria-labelledby="dry-run">
      <h2 id="dry-run">Erasure dry run</h2>
      <p>
        Nothing has changed yet. Erasing redacts the subject in every stored body, row and archive file below and tells each destination
        with one <code>customer.erased</code> message. Amounts, statuses and every payment&apos;s history stay. A redacted body can no
        longer be verified against the gateway&apos;s signature: its row keeps the original&apos;s SHA-256 and when its signature was
        verified. This cannot be undone.
      </p>
      {nothing ? (
        <p className="banner warn">
          Nothing stored names this subject now; erasing still records their identifiers, so a later delivery is stored redacted.
        </p>
      ) : null}
      <h3>What would change, per table and archive</h3>
      <CountsTable
        label="What the erasure would change"
        counts={preview.counts}
        empty="Nothing to change."
        nothingIn="Nothing to change in"
      />
      {preview.archives.length > 0 ? (
        <>
          <h3>Archive files to rewrite</h3>
          <ArchivesTable archives={preview.archives} />
        </>
      ) : null}
      <h3>Payments affected ({preview.payments.length})</h3>
      <ErasedPaymentsTable label="Payments affected" payments={preview.payments} />
      <form
        method="post"
        className="confirm-erasure"
        onSubmit={(event) => {
          event.preventDefault();
          startTransition(async () => {
            const result = await startErasure({ subject, confirmation });
            if (result.ok) router.push(`/privacy/erasures/${result.data.id}`);
            else setError(result.error);
          });
        }}
      >
        <label>
          Type the identifier or ERASE to confirm
          <input
            value={confirmation}
            onChange={(event) => setConfirmation(event.target.value)}
            size={36}
            autoComplete="off"
            spellCheck={false}
            required
          />
        </label>
        {error ? (
          <p role="alert" className="banner bad">
            {error}
          </p>
        ) : null}
        <p>
          <button className="danger" type="submit" disabled={!confirmed || pending}>
            {pending ? "Starting…" : "Erase this subject"}
          </button>
        </p>
      </form>
    </section>
  );
}

/** A data subject's requests: name them once, then export what is stored or dry-run their erasure. */
export function SubjectRequests({ providers }: { providers: string[] }) {
  const [kind, setKind] = useState<Kind>("email");
  const [value, setValue] = useState("");
  const [provider, setProvider] = useState("");
  const [asked, setAsked] = useState<SubjectInput | null>(null);
  const [exported, setExported] = useState<ExportResult | null>(null);
  const [preview, setPreview] = useState<ErasurePreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  const subject: SubjectInput = { kind, value, ...(kind === "customerId" && provider ? { provider } : {}) };
  // A result is of the subject it was asked for: editing the form clears it.
  const edit = (apply: () => void) => {
    apply();
    setAsked(null);
    setExported(null);
    setPreview(null);
    setError(null);
  };
  const run = (which: "export" | "dry-run") => (event?: FormEvent) => {
    event?.preventDefault();
    startTransition(async () => {
      setError(null);
      const result = which === "export" ? await exportSubject({ subject }) : await previewErasure({ subject });
      if (!result.ok) {
        setError(result.error);
        return;
      }
      setAsked(subject);
      if (which === "export") setExported(result.data as ExportResult);
      else setPreview(result.data as ErasurePreview);
    });
  };

  return (
    <>
      <section className="panel" aria-labelledby="subject">
        <h2 id="subject">Data subject</h2>
        <form method="post" className="filters" onSubmit={run("export")}>
          <label>
            Named by
            <select value={kind} onChange={(event) => edit(() => setKind(event.target.value as Kind))}>
              {KINDS.map((option) => (
                <option key={option.kind} value={option.kind}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Identifier
            <input
              value={value}
              onChange={(event) => edit(() => setValue(event.target.value))}
              size={36}
              autoComplete="off"
              spellCheck={false}
              required
            />
          </label>
          {kind === "customerId" ? (
            <label>
              Provider
              <select value={provider} onChange={(event) => edit(() => setProvider(event.target.value))}>
                <option value="">any</option>
                {providers.map((name) => (
                  <option key={name}>{name}</option>
                ))}
              </select>
            </label>
          ) : null}
          <button type="submit" disabled={pending}>
            Export
          </button>
          <button type="button" disabled={pending || value.trim() === ""} onClick={() => run("dry-run")()}>
            Dry run erasure
          </button>
        </form>
        <p className="muted">
          <strong>Export</strong> shows how much is stored about them and gives the JSON to send them. <strong>Dry run erasure</strong>{" "}
          shows what erasing them would change, changing nothing; the erasure itself is confirmed there. The identifiers they are stored
          under besides this one (their customer id beside an e-mail, the CPF in a body) are followed too.
        </p>
        {error ? (
          <p role="alert" className="banner bad">
            {error}
          </p>
        ) : null}
      </section>
      {asked && exported ? <ExportPanel result={exported} /> : null}
      {asked && preview ? <DryRunPanel subject={asked} preview={preview} /> : null}
    </>
  );
}
