"""The audit trail: one hash-chained record per request, spooled durably, written to the database in batches."""
