-- Console access: a password someone else generated must be replaced before the console is used;
-- time-based one-time passwords (the secret sealed with a key derived from AUTH_SECRET, the last
-- accepted time step so a code can't be used twice, recovery codes as SHA-256 hashes).
ALTER TABLE users ADD COLUMN must_change_password BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN totp_secret TEXT;
ALTER TABLE users ADD COLUMN totp_enabled_at TIMESTAMPTZ(6);
ALTER TABLE users ADD COLUMN totp_last_step BIGINT;
ALTER TABLE users ADD COLUMN recovery_code_hashes TEXT[] NOT NULL DEFAULT '{}';

-- One-time codes are throttled like passwords, counted apart from them.
ALTER TABLE login_attempts ADD COLUMN factor VARCHAR(16) NOT NULL DEFAULT 'password';
