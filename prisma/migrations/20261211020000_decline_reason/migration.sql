-- Why the gateway refused a payment ({ "code", "message" }, each optional and bounded by the drivers,
-- lib/canonical/charge-event.ts): set by an observation that carries one while the payment has not
-- succeeded, kept while it stays pending, failed or canceled, cleared once it is authorized or paid
-- (lib/payments/apply-charge-update.ts). Null: no refusal known.
ALTER TABLE payments ADD COLUMN decline_reason jsonb;
