"""Cross-cutting gateway plumbing: settings, database, errors, middleware, secrets, TLS."""
