-- The payment's decline reason as of each change ({ "code", "message" } or null, as
-- payments.decline_reason holds it then): the feed and the pushes carry it as `declineReason`,
-- each version as it was, so a feed entry and a lookup of the same version agree.
ALTER TABLE payment_changes ADD COLUMN decline_reason jsonb;
