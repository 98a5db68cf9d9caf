"""Admin identity: OAuth2 bearer JWTs validated against a configured OIDC issuer's JWKS (or a local issuer key)."""
