-- Sign-in attempts, each written (as pending) before its password is checked, under locks on its
-- account and its address: concurrent guesses are counted one after another, so no burst gets more
-- checks than the throttle allows. The audit log keeps the outcomes; this table only what the
-- throttle reads, a day's worth (older rows are deleted as new attempts come in).
CREATE TABLE login_attempts (
    id      BIGSERIAL      PRIMARY KEY,
    at      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    email   VARCHAR(320)   NOT NULL,
    -- The client's address as the throttle counts it: its /32, or its /64 for IPv6; NULL: unknown.
    network INET,
    outcome VARCHAR(16)    NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'failed', 'succeeded'))
);
CREATE INDEX login_attempts_email_at_idx ON login_attempts (email, at DESC);
CREATE INDEX login_attempts_network_at_idx ON login_attempts (network, at DESC);
CREATE INDEX login_attempts_at_idx ON login_attempts (at);
