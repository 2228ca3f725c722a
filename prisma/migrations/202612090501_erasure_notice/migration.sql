-- An erasure tells the host once: its one `customer.erased` change carries the erasure's id and
-- every payment it changed ({"id", "payments": [{"provider", "chargeId"}]}); null on every other change.
ALTER TABLE payment_changes ADD COLUMN erasure jsonb;
