import { NextResponse } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { readJsonWithLimit } from "@/lib/request/read-body";
import { registerPaymentAndWake } from "@/lib/inbox/process/wake-waiting-events";
import { registerPaymentSchema } from "@/lib/payments/register-payment";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * The host application registers a payment it created at a gateway (for providers whose
 * PAYMENT_SOURCE is "host"). Idempotent: 201 when created, 200 when it already existed.
 */
export const POST = withErrors(async (request: Request) => {
  const token = requireApiToken(request);
  const runtime = webRuntime();
  const body = await readJsonWithLimit(request, runtime.config.bodyLimitBytes);
  const input = registerPaymentSchema(runtime.config).parse(body);
  providersFor(token, [input.provider]);
  const result = await registerPaymentAndWake({ pool: runtime.pool, boss: await runtime.boss(), config: runtime.config }, input);
  return NextResponse.json(result, { status: result.created ? 201 : 200 });
});
