import type { NextRequest } from "next/server";
import { withErrors } from "@/app/_server/route-handler";
import { answerWebhook } from "../answer-webhook";

export const dynamic = "force-dynamic";

/** A gateway delivers one webhook for its default account. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  return answerWebhook(request, provider);
});
