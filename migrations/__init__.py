"""Alembic environment and versions: the only way Warden's schema changes."""
