-- Which account's URL a refused delivery came to (`default` for /api/webhooks/{provider}): with many
-- accounts per gateway, the one whose secret is wrong. Null for refusals recorded before it was kept.
ALTER TABLE signature_failures ADD COLUMN gateway_account text;
