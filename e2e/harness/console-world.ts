import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import type { Role } from "@/lib/auth/permissions";
import { createUser } from "@/lib/auth/users";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { fakeGatewayEnv, startFakeGateway, type FakeGateway } from "../simulator/fake-gateway";
import type { PaymentHistory } from "../simulator/history";
import { httpSender, planWebhooks, sendAll, type WebhookPlanOptions } from "../simulator/send-webhooks";
import { startAppServer, type AppServer } from "./app-server";
import { openBrowser, signIn } from "./browser";

// The world the console's browser suites look at: a test database with console users (one
// password), the fake gateway answering refetches with the histories' true states, the built app
// and a real worker on that database, and the simulator's webhooks sent to it over HTTP. Each suite
// seeds its own (its histories, settings and extra events), through the same steps.

export const CONSOLE_PASSWORD = "correct horse battery staple";

export type ConsoleWorldOptions = {
  /** Names the test database. */
  label: string;
  /** Console users by e-mail, each signed in with CONSOLE_PASSWORD. */
  users: Record<string, Role>;
  /** The gateways' shared signing secrets, each set as its WEBHOOK_SECRET_* (Stripe's and Standard's unless said). */
  secrets?: Record<string, string>;
  /** The payments the fake gateway knows; without them no fake gateway is started. */
  histories?: PaymentHistory[];
  /** Which of the fake gateway's API settings the app gets (all of them unless said). */
  gatewayEnv?: (gatewayUrl: string) => Record<string, string>;
  /** The app's other settings. */
  env?: Record<string, string>;
  /** The browsers accept any certificate (the suite runs an https server of its own, with one made for the run). */
  ignoreHTTPSErrors?: boolean;
};

export type ConsoleWorld = {
  app: TestApp;
  server: AppServer;
  gateway: FakeGateway | undefined;
  histories: PaymentHistory[];
  secrets: Record<string, string>;
  /** A fresh Chromium profile, closed with the world. */
  openBrowser: (viewport?: { width: number; height: number }) => Promise<BrowserContext>;
  /** A fresh Chromium profile signed in as one of the users, on the overview (`touch`: a phone's touch screen). */
  browserAs: (email: string, viewport?: { width: number; height: number }, options?: { touch?: boolean }) => Promise<Page>;
  /** Sends the histories' webhooks as planned, retried like a gateway until each is acknowledged. */
  sendHistories: (plan: Omit<WebhookPlanOptions, "secrets">, concurrency: number) => Promise<void>;
  /** Waits until no stored event is pending (the worker has processed, ignored or failed each). */
  settled: (timeoutMs: number) => Promise<void>;
  close: () => Promise<void>;
};

export async function startConsoleWorld(options: ConsoleWorldOptions): Promise<ConsoleWorld> {
  const secrets = options.secrets ?? { stripe: TEST_SECRETS.stripe, standard: TEST_SECRETS.standard };
  const histories = options.histories ?? [];
  const contexts: BrowserContext[] = [];
  const app = await createTestApp(options.label, {});
  for (const [email, role] of Object.entries(options.users))
    await createUser(app.prisma, { email, role, password: CONSOLE_PASSWORD }, "e2e");
  let gateway: FakeGateway | undefined;
  let server: AppServer;
  try {
    if (options.histories) gateway = await startFakeGateway(histories);
    server = await startAppServer({
      ...(gateway ? (options.gatewayEnv ?? fakeGatewayEnv)(gateway.url) : {}),
      DATABASE_URL: app.db.url,
      AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
      ...Object.fromEntries(Object.entries(secrets).map(([provider, secret]) => [`WEBHOOK_SECRET_${provider.toUpperCase()}`, secret])),
      ...options.env,
    });
  } catch (error) {
    await gateway?.close();
    await app.close();
    throw error;
  }
  const browser = async (viewport?: { width: number; height: number }, touch = false) => {
    const context = await openBrowser(viewport, { ignoreHTTPSErrors: options.ignoreHTTPSErrors, touch });
    contexts.push(context);
    return context;
  };
  return {
    app,
    server,
    gateway,
    histories,
    secrets,
    openBrowser: browser,
    browserAs: async (email, viewport, { touch } = {}) => signIn(await browser(viewport, touch), server.url, email, CONSOLE_PASSWORD),
    sendHistories: async (plan, concurrency) => {
      const webhooks = planWebhooks(histories, { ...plan, secrets });
      expect((await sendAll(webhooks, httpSender(server.url), { concurrency, secrets })).failed).toBe(0);
    },
    settled: async (timeoutMs) => {
      await waitFor(
        async () => (await app.pool.query("SELECT 1 FROM webhook_inbox WHERE status = 'pending' LIMIT 1")).rowCount === 0,
        timeoutMs,
        "events settled",
      );
    },
    close: async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await server.stop();
      await gateway?.close();
      await app.close();
    },
  };
}
