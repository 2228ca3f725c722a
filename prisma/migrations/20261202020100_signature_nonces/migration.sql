-- Signed request ids seen within the signature tolerance (Mercado Pago signs its request id and
-- timestamp, not the body): the same pair with another event is a replayed signature and is refused.
CREATE TABLE signature_nonces (
  provider varchar(30) NOT NULL,
  nonce varchar(300) NOT NULL,
  event_id varchar(150) NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, nonce)
);
CREATE INDEX signature_nonces_seen_at_idx ON signature_nonces (seen_at);
