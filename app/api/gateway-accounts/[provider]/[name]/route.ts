import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { clientIp } from "@/app/_server/auth";
import { withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import {
  accountChangeSchema,
  getGatewayAccountView,
  putGatewayAccount,
  removeGatewayAccount,
} from "@/lib/gateway-accounts/manage-gateway-accounts";
import { readJsonWithLimit } from "@/lib/request/read-body";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

type Context = RouteContext<"/api/gateway-accounts/[provider]/[name]">;

/** The token's, for a gateway it may read (a scoped token manages only its gateways' accounts); and who acts, for the audit log. */
async function authorized(request: NextRequest, context: Context) {
  const token = requireApiToken(request);
  const { provider, name } = await context.params;
  providersFor(token, [provider]);
  return { provider, name, actor: { name: "api", ip: clientIp(request.headers) } };
}

/**
 * Adds an account (201) or changes it (200): what the body gives replaces what it had (`secrets`
 * the whole list: the new secret and the old during a rotation), what it leaves out stays. Every
 * running process takes its deliveries within seconds. Answers the account as GET shows it.
 */
export const PUT = withErrors(async (request: NextRequest, context: Context) => {
  const { provider, name, actor } = await authorized(request, context);
  const runtime = webRuntime();
  const change = accountChangeSchema.parse(await readJsonWithLimit(request, runtime.config.bodyLimitBytes));
  const { created, account } = await putGatewayAccount(runtime, provider, name, change, actor);
  // This process needn't wait for its own notification.
  await runtime.accounts().refresh(account.provider, account.name);
  return NextResponse.json(account, { status: created ? 201 : 200 });
});

/** The account: its secrets as fingerprints, its credentials as fingerprints, never their values. */
export const GET = withErrors(async (request: NextRequest, context: Context) => {
  const { provider, name } = await authorized(request, context);
  const runtime = webRuntime();
  return NextResponse.json(await getGatewayAccountView(runtime.pool, runtime.config, provider, name));
});

/** Removes the account: its URL answers 404 from then on; its events and payments keep its name. */
export const DELETE = withErrors(async (request: NextRequest, context: Context) => {
  const { provider, name, actor } = await authorized(request, context);
  const runtime = webRuntime();
  await removeGatewayAccount(runtime, provider, name, actor);
  await runtime.accounts().refresh(provider, name);
  return new NextResponse(null, { status: 204 });
});
