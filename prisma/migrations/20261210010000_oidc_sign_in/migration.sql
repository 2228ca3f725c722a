-- Single sign-on: the identity a console user signed in with over OpenID Connect, linked at their
-- first such sign-in (by verified e-mail) and matched by it from then on. A subject is unique per
-- issuer only, so both are kept; another issuer's link never matches.
ALTER TABLE users ADD COLUMN oidc_issuer VARCHAR(500);
ALTER TABLE users ADD COLUMN oidc_subject VARCHAR(255);
ALTER TABLE users ADD CONSTRAINT users_oidc_identity_complete CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL));
CREATE UNIQUE INDEX users_oidc_identity_key ON users (oidc_issuer, oidc_subject);
