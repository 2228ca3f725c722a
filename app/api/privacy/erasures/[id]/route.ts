import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { getHostErasure } from "@/lib/erasure/erasures";
import { AppError } from "@/lib/errors/app-error";
import { rowIdSchema } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * An erasure's state, its counts per table and archive and the payments it changed (never the
 * identifier, nor its keyed hash). A token scoped to some gateways reads only the erasures of their
 * customer ids, the only ones it may ask for.
 */
export const GET = withErrors(async (request: NextRequest, context: RouteContext<"/api/privacy/erasures/[id]">) => {
  const token = requireApiToken(request);
  const id = rowIdSchema.parse((await context.params).id);
  const erasure = await getHostErasure(webRuntime().pool, id);
  if (!erasure) return errorResponse(404, "erasure not found", "NOT_FOUND");
  if (token.providers && !erasure.provider)
    throw new AppError("FORBIDDEN", "this token is scoped to some gateways; this erasure spans them all");
  if (erasure.provider) providersFor(token, [erasure.provider]);
  return NextResponse.json(erasure);
});
