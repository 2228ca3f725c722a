import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processEvents } from "../inbox/process/process-event";
import { registerPaymentAndWake } from "../inbox/process/wake-waiting-events";
import { REDACTED } from "../providers/personal-data";
import { randomId, signedWebhook, stripeEvent } from "../testing/gateway-events";
import { processDeps } from "../testing/payment-events";
import { createTestApp, ingestWebhook, TEST_SECRETS, type TestApp } from "../testing/test-app";
import { executeErasure, startErasure } from "./erasures";
import { searchSubject } from "./find-subject";

// What arrives after an erasure, or while it runs, about the erased person: stored redacted, by
// whichever of their identifiers it carries, or by the payment it is about.

const HASH_KEY = "privacy-later-hash-key-0123456789abcdef";

let app: TestApp;
let archiveDir: string;

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), "privacy-later-"));
  app = await createTestApp("privacy_later", { PRIVACY_HASH_KEY: HASH_KEY, ARCHIVE_DIR: archiveDir });
});
afterAll(async () => {
  await app?.close();
});

type Person = { email: string; customer: string; name: string; cpf?: string; phone?: string };

/** A Stripe charge event naming its person (billing details with their CPF, a description quoting the e-mail), received and processed. */
async function deliver(chargeId: string, who: Person, kind: "succeeded" | "refund" = "succeeded"): Promise<number> {
  const event = stripeEvent(
    { chargeId, amount: 5000, currency: "brl", customerId: who.customer, customerEmail: who.email },
    { kind, amountRefunded: kind === "refund" ? 5000 : 0, occurredAtMs: Date.now() - (kind === "refund" ? 0 : 5000) },
  );
  Object.assign(event.data.object, {
    billing_details: { email: who.email, name: who.name, tax_id: who.cpf ?? null, phone: who.phone ?? null },
    description: `Pedido de ${who.email}`,
  });
  expect((await ingestWebhook(app, signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe))).status).toBe(200);
  const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE event_id = $1", [event.id]);
  await processEvents(processDeps(app), [rows[0]!.id]);
  return rows[0]!.id;
}

async function erase(subject: { email: string }): Promise<void> {
  const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
  const erasure = await executeErasure(deps, await startErasure(deps, subject, { name: "test" }));
  expect(erasure!.status).toBe("done");
}

const dump = () =>
  execFileSync("pg_dump", ["--data-only", app.db.url], { maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"] }).toString(
    "utf8",
  );

describe("after an erasure", () => {
  it("stores a later event on an erased payment redacted, though it names the person by a new e-mail and customer id", async () => {
    const chargeId = randomId("ch");
    const before: Person = { email: "dora.before@exemplo.com.br", customer: "cus_DoraBefore", name: "Dora Antunes Belchior" };
    await deliver(chargeId, before);
    await erase({ email: before.email });
    // At the gateway she changed her e-mail (and her customer record) since; the refund is of the erased payment.
    const after: Person = { email: "dora.new@exemplo.com.br", customer: "cus_DoraAfter", name: "Dora A. Belchior" };
    const id = await deliver(chargeId, after, "refund");
    const { rows } = await app.pool.query(
      "SELECT customer_id, customer_email, redacted_at IS NOT NULL AS redacted, original_sha256 IS NOT NULL AS digest FROM webhook_inbox WHERE id = $1",
      [id],
    );
    expect(rows).toEqual([{ customer_id: REDACTED, customer_email: REDACTED, redacted: true, digest: true }]);
    const text = dump();
    for (const identifier of [after.email, after.customer, after.name, before.email]) expect(text).not.toContain(identifier);
    // The money moved as the event says; the customer stays erased.
    const { rows: payment } = await app.pool.query(
      "SELECT status, customer_id, customer_email FROM payments WHERE gateway_charge_id = $1",
      [chargeId],
    );
    expect(payment).toEqual([{ status: "refunded", customer_id: REDACTED, customer_email: REDACTED }]);
  });

  it("registers a payment the host names by an erased identifier with its customer redacted; another customer as given", async () => {
    const erased: Person = { email: "eli.registered@exemplo.com.br", customer: "cus_EliRegistered", name: "Eli Prado Registro" };
    await deliver(randomId("ch"), erased);
    await erase({ email: erased.email });
    const deps = { pool: app.pool, boss: app.boss, config: app.config };
    const again = randomId("ch");
    // As POST /api/payments registers it: the host kept (or got back) the e-mail it was told to erase.
    expect(
      await registerPaymentAndWake(deps, {
        provider: "stripe",
        chargeId: again,
        amount: 1990,
        currency: "BRL",
        customerEmail: erased.email.toUpperCase(),
      }),
    ).toMatchObject({ created: true });
    const byId = randomId("ch");
    await registerPaymentAndWake(deps, { provider: "stripe", chargeId: byId, amount: 500, currency: "brl", customerId: erased.customer });
    const other = randomId("ch");
    await registerPaymentAndWake(deps, {
      provider: "stripe",
      chargeId: other,
      amount: 700,
      currency: "brl",
      customerId: "cus_Fresh",
      customerEmail: "fresh@example.org",
    });
    const { rows } = await app.pool.query(
      "SELECT gateway_charge_id, amount, currency, customer_id, customer_email FROM payments WHERE gateway_charge_id = ANY($1) ORDER BY id",
      [[again, byId, other]],
    );
    expect(rows).toEqual([
      { gateway_charge_id: again, amount: 1990, currency: "brl", customer_id: REDACTED, customer_email: REDACTED },
      { gateway_charge_id: byId, amount: 500, currency: "brl", customer_id: REDACTED, customer_email: REDACTED },
      { gateway_charge_id: other, amount: 700, currency: "brl", customer_id: "cus_Fresh", customer_email: "fresh@example.org" },
    ]);
    expect(dump()).not.toContain(erased.email);
  });

  it("erases by e-mail the CPF found beside it: the rows naming only that CPF, before, during and after the erasure", async () => {
    const fabio: Person = {
      email: "fabio.cofound@exemplo.com.br",
      customer: "cus_FabioMain",
      name: "Fabio Cardoso Lemos",
      cpf: "286.210.867-50",
    };
    await deliver(randomId("ch"), fabio);
    // The same person at another checkout: another e-mail and customer record, only the CPF in common.
    const elsewhere = (tag: string): Person => ({
      email: `f.lemos.${tag}@outro.example`,
      customer: `cus_FabioOther${tag}`,
      name: "F. C. Lemos",
      cpf: "28621086750",
    });
    const beforeId = await deliver(randomId("ch"), elsewhere("before"));
    let duringId: number | undefined;
    const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
    const erasureId = await startErasure(deps, { email: fabio.email }, { name: "test" });
    const erasure = await executeErasure(deps, erasureId, async (step) => {
      // Found already, its CPF not yet remembered: a delivery naming only the CPF is stored as it came.
      if (step === "subject_found") duringId = await deliver(randomId("ch"), elsewhere("during"));
    });
    expect(erasure!.status).toBe("done");
    expect(duringId).toBeDefined();
    const afterId = await deliver(randomId("ch"), elsewhere("after"));
    const { rows } = await app.pool.query(
      "SELECT id, customer_id, customer_email, payload::text LIKE '%Lemos%' AS named FROM webhook_inbox WHERE id = ANY($1) ORDER BY id",
      [[beforeId, duringId, afterId]],
    );
    expect(rows).toEqual(
      [beforeId, duringId, afterId].map((id) => ({ id, customer_id: REDACTED, customer_email: REDACTED, named: false })),
    );
    const text = dump();
    for (const identifier of [fabio.email, fabio.cpf, "28621086750", "FabioOther", "f.lemos.", "Lemos"])
      expect(text).not.toContain(identifier);
    // Their payments at the other checkout are theirs too: each customer redacted.
    const { rows: payments } = await app.pool.query("SELECT DISTINCT customer_email FROM payments WHERE customer_id LIKE 'cus_Fabio%'");
    expect(payments).toEqual([]);
  });

  it("looks again, after remembering the keys, for a phone found only in the first search's last rows: a row naming only it is found", async () => {
    // Gil's e-mail finds his row (his CPF), his CPF a row at another checkout (a phone, found last),
    // and the phone a row older than the erasure naming nothing else of his: only the look again reads for it.
    const gil: Person = { email: "gil.chain@exemplo.com.br", customer: "cus_GilMain", name: "Gil Teixeira Mota", cpf: "390.533.447-05" };
    await deliver(randomId("ch"), gil);
    await deliver(randomId("ch"), {
      email: "g.mota@outro.example",
      customer: "cus_GilOther",
      name: "G. T. Mota",
      cpf: gil.cpf,
      phone: "+55 11 97654-3210",
    });
    const phoneOnlyId = await deliver(randomId("ch"), {
      email: "gtm@terceiro.example",
      customer: "cus_GilThird",
      name: "Gilberto T.",
      phone: "+55 11 97654-3210",
    });
    await erase({ email: gil.email });
    const { rows } = await app.pool.query("SELECT customer_id, customer_email FROM webhook_inbox WHERE id = $1", [phoneOnlyId]);
    expect(rows).toEqual([{ customer_id: REDACTED, customer_email: REDACTED }]);
    for (const identifier of ["gtm@terceiro.example", "cus_GilThird", "97654-3210"]) expect(dump()).not.toContain(identifier);
  });

  it("finds a row whose writer was still storing it when the erasure began: its search waits for that writer", async () => {
    const hana: Person = {
      email: "hana.inflight@exemplo.com.br",
      customer: "cus_HanaMain",
      name: "Hana Ribeiro Lopes",
      cpf: "517.048.226-31",
    };
    const templateId = await deliver(randomId("ch"), hana);
    // A writer that began before the erasure and commits after the erasure asked for the inbox:
    // a row at another checkout naming only Hana's CPF, its transaction still open.
    const writer = await app.pool.connect();
    let committed = false;
    const commit = async () => {
      if (committed) return;
      committed = true;
      await writer.query("COMMIT");
    };
    try {
      await writer.query("BEGIN");
      const { rows: inserted } = await writer.query<{ id: string }>(
        `INSERT INTO webhook_inbox
         SELECT (jsonb_populate_record(NULL::webhook_inbox, to_jsonb(w) || jsonb_build_object(
                   'id', nextval('webhook_inbox_id_seq'), 'event_id', 'evt_inflight_hana', 'resource_id', 'ch_inflight_hana',
                   'customer_id', 'cus_HanaInflight', 'customer_email', 'h.lopes@inflight.example',
                   'payload', jsonb_build_object('data', jsonb_build_object('object', jsonb_build_object(
                     'id', 'ch_inflight_hana', 'billing_details', jsonb_build_object('tax_id', $2::text, 'email', 'h.lopes@inflight.example'))))))).*
           FROM webhook_inbox w WHERE id = $1
         RETURNING id::text`,
        [templateId, "51704822631"],
      );
      // Someone else's delivery, committed meanwhile: the newest row's id is past the one in flight.
      await deliver(randomId("ch"), { email: "other.buyer@exemplo.com.br", customer: "cus_OtherBuyer", name: "Outra Pessoa" });
      const deps = { pool: app.pool, archiveDir, hashKey: HASH_KEY };
      const erasing = executeErasure(deps, await startErasure(deps, { email: hana.email }, { name: "test" }), async (step) => {
        // Had the search not waited, the writer commits here, between the searches.
        if (step === "subject_found") await commit();
      });
      // Commit once the erasure waits for the writer (or it found the subject without waiting).
      for (let waited = 0; !committed && waited < 200; waited += 1) {
        const { rows } = await app.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'webhook_inbox'::regclass AND mode = 'ShareLock' AND NOT granted",
        );
        if (rows[0]!.n > 0) await commit();
        else await new Promise((tick) => setTimeout(tick, 50));
      }
      expect((await erasing)!.status).toBe("done");
      const { rows } = await app.pool.query("SELECT customer_id, customer_email FROM webhook_inbox WHERE id = $1", [inserted[0]!.id]);
      expect(rows).toEqual([{ customer_id: REDACTED, customer_email: REDACTED }]);
    } finally {
      await commit().catch(() => undefined);
      writer.release();
    }
  });

  it("looking again, reads a document's bodies only in the rows stored after the search that read them began", async () => {
    const ines: Person = { email: "ines.since@exemplo.com.br", customer: "cus_InesMain", name: "Ines Duarte Neves", cpf: "604.118.392-70" };
    const elsewhere = (tag: string): Person => ({
      email: `i.neves.${tag}@outro.example`,
      customer: `cus_Ines${tag}`,
      name: "I. Neves",
      cpf: "60411839270",
    });
    await deliver(randomId("ch"), ines);
    const olderId = await deliver(randomId("ch"), elsewhere("Older"));
    const { rows: newest } = await app.pool.query<{ id: string }>("SELECT max(id)::text AS id FROM webhook_inbox");
    const newerId = await deliver(randomId("ch"), elsewhere("Newer"));
    const store = { pool: app.pool, archiveDir };
    const read = { documents: ["60411839270"], throughInboxId: Number(newest[0]!.id) };
    // Known by the CPF only (not the e-mails beside it): which rows the bodies' search returns.
    const again = await searchSubject(store, { document: "60411839270" }, { known: ["60411839270"], read });
    expect(again.scope.liveEventIds).toContain(newerId);
    expect(again.scope.liveEventIds).not.toContain(olderId);
    // A document not read before is read in every row.
    const first = await searchSubject(store, { document: "60411839270" });
    expect(first.scope.liveEventIds).toEqual(expect.arrayContaining([olderId, newerId]));
    expect(first.documentsRead).toContain("60411839270");
  });
});
