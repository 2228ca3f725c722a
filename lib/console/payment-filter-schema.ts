import { z } from "zod";
import { PROVIDER_NAMES } from "../providers/registry";
import { dateParamSchema, storableTextSchema } from "../request/input-schemas";
import { PAYMENT_EVENT_DATES, type PaymentFilter } from "../payments/search-payments";
import { PAYMENT_STATUSES } from "../payments/state-machine";

export const PAYMENT_SORTS = ["updated_desc", "updated_asc", "created_desc", "created_asc", "amount_desc", "amount_asc"] as const;

/** A payments filter as it comes from outside (a URL): what lists, totals and exports accept. */
export const paymentFilterSchema = z.object({
  search: storableTextSchema.trim().min(1).max(320).optional(),
  statuses: z.array(z.enum(PAYMENT_STATUSES)).optional(),
  provider: z.enum(PROVIDER_NAMES).optional(),
  account: storableTextSchema.trim().min(1).max(200).optional(),
  createdFrom: dateParamSchema.optional(),
  createdTo: dateParamSchema.optional(),
  dated: z.object({ on: z.enum(PAYMENT_EVENT_DATES), from: dateParamSchema.optional(), to: dateParamSchema.optional() }).optional(),
}) satisfies z.ZodType<PaymentFilter>;
