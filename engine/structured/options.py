"""How llguidance compiles JSON schemas for Warden (shared by plain schemas and tool-call arguments)."""

from typing import Any

# JSON layout the model must follow. Fixed separators (", " and ": ", as Python's json.dumps writes) and no free
# whitespace: a small model left free whitespace can emit newlines until max_tokens, and a fixed layout lets the
# grammar force more tokens (jump-forward). ``lenient`` stays off so an unimplemented keyword is refused, never
# silently ignored. Passed as ``overrides`` (and as the top-level "x-guidance" of embedded schemas, replacing any
# the caller sent) so a schema cannot loosen them.
JSON_OPTIONS: dict[str, Any] = {
    "whitespace_flexible": False,
    "item_separator": ", ",
    "key_separator": ": ",
    "lenient": False,
    "coerce_one_of": False,
}

# Bumped whenever the way a spec becomes a grammar changes, so cache keys never collide across versions.
GRAMMAR_FORMAT_VERSION = "1"
