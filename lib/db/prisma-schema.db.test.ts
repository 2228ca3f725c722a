import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";

// The Prisma schema mirrors hand-written SQL migrations; this proves the generated client can write
// and read every model against the migrated database (a drifted column or type fails here).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("prisma");
});
afterAll(async () => app.close());

describe("Prisma client on the migrated schema", () => {
  it("writes and reads every model", async () => {
    const { prisma } = app;
    const event = await prisma.inboxEvent.create({
      data: {
        provider: "stripe",
        eventId: "evt_prisma",
        eventType: "charge.succeeded",
        resourceId: "ch_1",
        customerId: "cus_1",
        customerEmail: "a@example.com",
        payload: { id: "evt_prisma" },
        rawBody: Buffer.from('{"id":"evt_prisma"}'),
        headers: { "stripe-signature": "t=1,v1=x" },
        occurredAt: new Date("2024-01-01T00:00:00Z"),
        occurredAtPrecision: "second",
        ignoredReason: null,
        nextAttemptAt: new Date(),
      },
    });
    expect(event.status).toBe("pending");
    expect(event.attempts).toBe(0);

    const attempt = await prisma.processingAttempt.create({
      data: { inboxId: event.id, attempt: 1, outcome: "processed", durationMs: 12, finishedAt: new Date(), worker: "w1" },
    });
    const payment = await prisma.payment.create({
      data: {
        provider: "stripe",
        gatewayChargeId: "ch_1",
        status: "paid",
        amount: 1000n,
        currency: "usd",
        customerEmail: "a@example.com",
        lastGatewayEventAt: new Date(),
        lastGatewayEventPrecision: "second",
      },
    });
    const transition = await prisma.paymentTransition.create({
      data: { paymentId: payment.id, inboxId: event.id, fromStatus: null, toStatus: "paid", toAmountRefunded: 0n, source: "event" },
    });
    const change = await prisma.paymentChange.create({
      data: {
        paymentId: payment.id,
        version: 1,
        provider: "stripe",
        gatewayChargeId: "ch_1",
        status: "paid",
        amountRefunded: 0n,
        inboxId: event.id,
      },
    });
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: payment.id }, include: { changes: true } })).changes).toMatchObject([
      { id: change.id, feedPosition: null },
    ]);
    expect(await prisma.paymentFeedHead.findMany()).toEqual([{ id: true, lastPosition: 0n }]);
    const destination = await prisma.destination.create({
      data: { name: "host", url: "http://host.internal/hooks", secret: "whsec_x", providers: ["stripe"] },
    });
    const delivery = await prisma.delivery.create({
      data: { destinationId: destination.id, changeId: change.id, paymentId: payment.id, version: 1 },
    });
    await prisma.deliveryAttempt.create({
      data: { deliveryId: delivery.id, destinationId: destination.id, outcome: "delivered", statusCode: 204, latencyMs: 3 },
    });
    expect(
      await prisma.delivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptRows: true, destination: true } }),
    ).toMatchObject({
      status: "pending",
      attemptRows: [{ statusCode: 204 }],
      destination: { providers: ["stripe"], enabled: true, feedPosition: 0n },
    });
    const failure = await prisma.signatureFailure.create({
      data: { provider: "stripe", reason: "bad", bodyExcerpt: "{}", bodySha256: "0".repeat(64), bodyBytes: 2 },
    });
    const audit = await prisma.auditLog.create({ data: { actor: "ops@example.com", action: "replay", details: { count: 1 } } });
    const user = await prisma.user.create({ data: { email: "u@example.com", role: "viewer", passwordHash: "scrypt$x" } });

    const read = await prisma.inboxEvent.findUniqueOrThrow({ where: { id_receivedAt: { id: event.id, receivedAt: event.receivedAt } } });
    expect(Buffer.from(read.rawBody!).toString()).toBe('{"id":"evt_prisma"}');
    expect((await prisma.processingAttempt.findMany({ where: { inboxId: event.id } })).map((row) => row.id)).toEqual([attempt.id]);
    expect((await prisma.paymentTransition.findMany({ where: { inboxId: event.id } })).map((row) => row.id)).toEqual([transition.id]);
    const key = await prisma.inboxEventKey.create({
      data: { provider: "stripe", eventId: "evt_prisma", inboxId: event.id, receivedAt: event.receivedAt },
    });
    expect(
      await prisma.inboxEventKey.findUniqueOrThrow({ where: { provider_eventId: { provider: "stripe", eventId: "evt_prisma" } } }),
    ).toEqual(key);
    const partitions = await prisma.inboxPartition.findMany({ where: { state: "attached" } });
    expect(partitions.some((partition) => partition.rangeFrom <= event.receivedAt && event.receivedAt < partition.rangeTo)).toBe(true);
    expect(
      (await prisma.payment.findUniqueOrThrow({ where: { id: payment.id }, include: { transitions: true } })).transitions,
    ).toHaveLength(1);
    expect(await prisma.signatureFailure.findUniqueOrThrow({ where: { id: failure.id } })).toMatchObject({ bodyBytes: 2 });
    expect(await prisma.auditLog.findUniqueOrThrow({ where: { id: audit.id } })).toMatchObject({ details: { count: 1 } });
    expect(await prisma.user.findUniqueOrThrow({ where: { email: "u@example.com" } })).toMatchObject({ id: user.id, role: "viewer" });

    const run = await prisma.replayRun.create({ data: { actor: "ops@example.com", filter: { statuses: ["failed"] }, expected: 1 } });
    const replay = await prisma.eventReplay.create({
      data: { inboxId: event.id, runId: run.id, actor: "ops@example.com", previousStatus: "failed" },
    });
    expect(await prisma.eventReplay.findUniqueOrThrow({ where: { id: replay.id } })).toMatchObject({
      runId: run.id,
      previousStatus: "failed",
    });

    await prisma.inboxEvent.update({
      where: { id_receivedAt: { id: event.id, receivedAt: event.receivedAt } },
      data: { status: "processed", processedAt: new Date() },
    });
    expect(await prisma.customerEmail.findMany()).toEqual([{ email: "a@example.com" }]);
    const totals = await prisma.paymentHourlyTotal.findMany({ where: { provider: payment.provider } });
    expect(totals.reduce((sum, row) => sum + row.payments, 0n)).toBe(1n);
    const counts = await prisma.inboxHourlyCount.findMany({ where: { provider: "stripe" } });
    const byStatus = (status: string) => counts.filter((row) => row.status === status).reduce((sum, row) => sum + row.n, 0n);
    expect([byStatus("pending"), byStatus("processed")]).toEqual([0n, 1n]);
    const erasure = await prisma.privacyErasure.create({
      data: { actor: "cli:ops", subjectKind: "email", subjectHash: "a".repeat(64), payments: [payment.id], counts: { payments: 1 } },
    });
    await prisma.erasedIdentifier.create({ data: { hash: "b".repeat(64), erasureId: erasure.id } });
    expect(await prisma.privacyErasure.findUniqueOrThrow({ where: { id: erasure.id } })).toMatchObject({
      status: "queued",
      payments: [payment.id],
    });
    expect(await prisma.erasedIdentifier.count()).toBe(1);
    const cursor = await prisma.reconcileCursor.create({
      data: { provider: "asaas", gatewayAccount: "loja-a", windowStart: new Date(0), windowEnd: new Date() },
    });
    expect(
      await prisma.reconcileCursor.findUniqueOrThrow({
        where: { provider_gatewayAccount: { provider: "asaas", gatewayAccount: "loja-a" } },
      }),
    ).toEqual(cursor);
    const first = await prisma.gatewayAccount.create({ data: { provider: "asaas", name: "loja-a", sealed: "v1.x.y.z" } });
    const second = await prisma.gatewayAccount.create({ data: { provider: "asaas", name: "loja-b", sealed: "v1.x.y.z" } });
    expect(second.version).toBeGreaterThan(first.version);
    expect(first).toMatchObject({ enabled: true, gatewayAccountId: null, secretFingerprints: [], credentialFingerprints: {} });
    // One account per gateway id: loja-c can't claim the id loja-a stands for by its name.
    await expect(
      prisma.gatewayAccount.create({ data: { provider: "asaas", name: "loja-c", gatewayAccountId: "loja-a", sealed: "v1.x.y.z" } }),
    ).rejects.toThrow();
    await expect(
      prisma.inboxEventKey.create({ data: { provider: "stripe", eventId: "evt_prisma", inboxId: 0n, receivedAt: new Date() } }),
    ).rejects.toThrow();
    await expect(prisma.user.create({ data: { email: "bad@example.com", role: "root", passwordHash: "x" } })).rejects.toThrow();
  });
});
