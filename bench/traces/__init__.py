"""Mooncake-format request traces: the format (``mooncake``), an agentic-shape generator (``generate``) and a
small CPU trace shipped beside them (``cpu_default.jsonl``)."""
