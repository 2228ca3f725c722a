"use server";

import type { z } from "zod";
import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/privacy-actions";

export async function exportSubject(input: z.input<typeof actions.exportSubject.schema>) {
  return runAction("exportSubject", actions.exportSubject, input);
}

export async function previewErasure(input: z.input<typeof actions.previewErasure.schema>) {
  return runAction("previewErasure", actions.previewErasure, input);
}

export async function startErasure(input: z.input<typeof actions.startErasure.schema>) {
  return runAction("startErasure", actions.startErasure, input);
}
