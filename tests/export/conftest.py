"""Export tests reuse the gateway tests' database fixtures (a fresh migrated SQLite file, or a new Postgres
database when WARDEN_DATABASE_URL is set): loaded from tests/gateway/conftest.py, not copied."""

import importlib.util
import sys
from pathlib import Path

_GATEWAY_TESTS = Path(__file__).resolve().parents[1] / "gateway"
sys.path.insert(0, str(_GATEWAY_TESTS))  # gateway_support
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "admin"))  # admin_support
_spec = importlib.util.spec_from_file_location("warden_gateway_fixtures", _GATEWAY_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

database_url = _fixtures.database_url
db = _fixtures.db
settings = _fixtures.settings
