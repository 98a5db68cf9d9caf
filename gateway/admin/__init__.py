"""The admin API (/admin/v1): tenants, keys, versioned policies, usage and processing records, role-scoped."""
