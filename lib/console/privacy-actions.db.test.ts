import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { fanOutChanges } from "../destinations/fan-out-changes";
import { createDestination } from "../destinations/manage-destinations";
import { createGatewayClients } from "../http/gateway-clients";
import { erasuresJob } from "../jobs/definitions/erasures";
import { runJob } from "../jobs/work-jobs";
import { changeStripePayment, processDeps, stripePayment } from "../testing/payment-events";
import { createTestApp, type TestApp } from "../testing/test-app";
import { testConfig } from "../testing/test-worker";
import type { ConsoleAction, ConsoleActor, ConsoleRuntime } from "./console-action";
import { getErasureView, getPrivacyView } from "./get-privacy-view";
import { exportSubject, previewErasure, startErasure } from "./privacy-actions";

// The console's subject requests (admin) against a real database: the export the admin downloads,
// the dry run before the typed confirmation, the erasure its job runs, and the list of erasures.

const HASH_KEY = "console-privacy-hash-key-0123456789abcdef";
let app: TestApp;
let runtime: ConsoleRuntime;
const actor: ConsoleActor = {
  user: {
    id: 1,
    email: "admin@privacy.test",
    name: null,
    role: "admin",
    createdAt: new Date(),
    disabledAt: null,
    mustChangePassword: false,
    twoFactor: false,
  },
  ip: "203.0.113.7",
};

beforeAll(async () => {
  app = await createTestApp("privacy_console", { PRIVACY_HASH_KEY: HASH_KEY });
  const config = testConfig(app.env);
  runtime = { config, pool: app.pool, boss: async () => app.boss, gateways: createGatewayClients(config), prisma: app.prisma };
});
afterAll(async () => app.close());

/** An action as runAction runs it: its input parsed by its schema, then run for the admin. */
const run = <Schema extends z.ZodType, Result>(action: ConsoleAction<Schema, Result>, input: z.input<Schema>) =>
  action.run(runtime, action.schema.parse(input), actor);

describe("the console's subject requests", () => {
  const payment = { ...stripePayment(), customerEmail: "carla.console@example.com", customerId: "cus_CarlaConsole" };
  const subject = { kind: "email" as const, value: "Carla.Console@example.com" };

  it("exports the subject as the CLI prints it, audited with the admin and a keyed hash", async () => {
    expect(await changeStripePayment(app, processDeps(app), payment, { kind: "succeeded" })).toBe("processed");
    expect(await changeStripePayment(app, processDeps(app), payment, { kind: "refund", amountRefunded: 300 })).toBe("processed");
    const result = await run(exportSubject, { subject });
    expect(result.summary).toMatchObject({ payments: 1, events: 2, archiveEntries: 0 });
    expect(JSON.parse(result.json).payments[0]).toMatchObject({ chargeId: payment.chargeId, customerId: payment.customerId });
    const { rows } = await app.pool.query("SELECT actor, ip, details FROM audit_log WHERE action = 'privacy_export'");
    expect(rows).toEqual([{ actor: actor.user.email, ip: actor.ip, details: expect.objectContaining({ kind: "email", payments: 1 }) }]);
    expect(JSON.stringify(rows)).not.toContain("carla");
  });

  it("refuses a subject named by nothing, and a customer id of an unknown gateway", () => {
    expect(() => exportSubject.schema.parse({ subject: { kind: "email", value: "" } })).toThrow();
    expect(() => exportSubject.schema.parse({ subject: { kind: "customerId", value: "cus_1", provider: "nope" } })).toThrow();
    expect(exportSubject.schema.parse({ subject: { kind: "customerId", value: " cus_1 ", provider: "" } }).subject).toEqual({
      customerId: "cus_1",
    });
  });

  it("dry-runs the erasure: counts per table, the payments affected, nothing changed", async () => {
    const preview = await run(previewErasure, { subject });
    expect(preview).toEqual({
      counts: {
        payments: 1,
        payment_changes: 2,
        customer_emails: 1,
        deliveries: 0,
        delivery_attempts: 0,
        processing_attempts: 0,
        replay_runs: 0,
        audit_log: 0,
        signature_failures: 0,
        inbox_events: 2,
        archived_events: 0,
        archive_files: 0,
        partition_events: 0,
        partition_archives: 0,
      },
      archives: [],
      payments: [
        {
          id: expect.any(Number),
          provider: "stripe",
          chargeId: payment.chargeId,
          status: "partially_refunded",
          amount: payment.amount,
          currency: payment.currency,
        },
      ],
    });
    expect((await app.pool.query("SELECT customer_email FROM payments WHERE gateway_charge_id = $1", [payment.chargeId])).rows).toEqual([
      { customer_email: payment.customerEmail },
    ]);
  });

  it("starts the erasure only once the identifier or ERASE is typed; its job erases, the list counts it", async () => {
    await expect(run(startErasure, { subject, confirmation: "erase" })).rejects.toThrow(/type the identifier or ERASE/);
    await expect(run(startErasure, { subject, confirmation: "someone@else.com" })).rejects.toThrow(/type the identifier or ERASE/);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM privacy_erasures")).rows[0].n).toBe(0);

    // Destinations filtered away from the payment's status, and to another gateway.
    const wantsStripe = await createDestination(
      app.pool,
      { name: "stripe-chargebacks", url: "https://host.example/a", providers: ["stripe"], statuses: ["charged_back"] },
      { actor: "test" },
    );
    const wantsPagarme = await createDestination(
      app.pool,
      { name: "pagarme", url: "https://host.example/b", providers: ["pagarme"] },
      { actor: "test" },
    );
    const { id } = await run(startErasure, { subject, confirmation: ` ${subject.value} ` });
    expect(await getErasureView(app.pool, id)).toMatchObject({ status: "queued", finished: false });
    await runJob(erasuresJob, processDeps(app, testConfig(app.env, { PRIVACY_HASH_KEY: HASH_KEY })), { erasureId: id });
    const done = (await getErasureView(app.pool, id))!;
    expect(done).toMatchObject({ status: "done", finished: true, counts: { payments: 1, inbox_events: 2 } });
    expect(done.payments).toEqual([expect.objectContaining({ chargeId: payment.chargeId, amount: payment.amount })]);
    // The erasure's one change goes to the destination of its payment's gateway whatever its status filter, not to the other.
    await fanOutChanges(app.pool);
    const { rows: queued } = await app.pool.query(
      `SELECT d.destination_id, c.event_type, c.erasure FROM deliveries d JOIN payment_changes c ON c.id = d.change_id ORDER BY d.id`,
    );
    expect(queued).toEqual([
      {
        destination_id: wantsStripe.destination.id,
        event_type: "customer.erased",
        erasure: { id: String(id), payments: [{ provider: "stripe", account: "default", chargeId: payment.chargeId }] },
      },
    ]);
    expect(queued.some((row) => row.destination_id === wantsPagarme.destination.id)).toBe(false);
    const { rows: audit } = await app.pool.query("SELECT actor FROM audit_log WHERE action = 'privacy_erasure'");
    expect(audit).toEqual([{ actor: actor.user.email }]);

    // Typed ERASE works too; the list pages erasures newest first with their total.
    const second = await run(startErasure, { subject: { kind: "document", value: "39053344705" }, confirmation: "ERASE" });
    const view = await getPrivacyView(app.pool, {});
    expect(view).toMatchObject({ total: 2, page: 1 });
    expect(view.erasures.map((row) => [row.id, row.actor, row.subjectKind])).toEqual([
      [second.id, actor.user.email, "document"],
      [id, actor.user.email, "email"],
    ]);
    expect((await getPrivacyView(app.pool, { page: "2" })).erasures).toEqual([]);
    expect(await getErasureView(app.pool, 999_999)).toBeNull();
  });
});
