-- Sessions: a signed-in token carries the user's session version; sign-out, a password reset, a role
-- change or disabling the user bumps it, so tokens issued before stop working at once.
ALTER TABLE users ADD COLUMN session_version INTEGER NOT NULL DEFAULT 0;

-- Login backoff looks up one account's failures from one address.
CREATE INDEX audit_log_actor_action_at_idx ON audit_log (actor, action, at DESC);
