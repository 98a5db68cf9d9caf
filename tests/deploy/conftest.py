"""tests/deploy shares the gateway tests' helpers (fresh Postgres databases); tests/ has no packages, so their
folder joins the import path here."""

import sys
from pathlib import Path

_GATEWAY_TESTS = str(Path(__file__).resolve().parents[1] / "gateway")
if _GATEWAY_TESTS not in sys.path:
    sys.path.append(_GATEWAY_TESTS)
