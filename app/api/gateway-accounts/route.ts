import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { accountPageQuerySchema, readGatewayAccountPage } from "@/lib/gateway-accounts/manage-gateway-accounts";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * A page of the gateway accounts the token may see (a scoped token: its gateways' only), the
 * environment's and the database's, as GET of one shows them: fingerprints, never a secret.
 */
export const GET = withErrors(async (request: NextRequest) => {
  const token = requireApiToken(request);
  const { provider, after, limit } = accountPageQuerySchema.parse(Object.fromEntries(request.nextUrl.searchParams));
  const runtime = webRuntime();
  return NextResponse.json(
    await readGatewayAccountPage(runtime.pool, runtime.config, { providers: providersFor(token, provider), after, limit }),
  );
});
