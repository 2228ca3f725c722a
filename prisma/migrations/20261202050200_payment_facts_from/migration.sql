-- Where each of a payment's facts (amount, currency, customer id, customer e-mail) came from: the
-- inbox event that first supplied it and whether the event's body or a refetch said so, e.g.
-- {"amount": {"inboxId": 42, "source": "event"}}. Facts are kept from ignored (stale) events too.
ALTER TABLE payments ADD COLUMN facts_from JSONB NOT NULL DEFAULT '{}';
