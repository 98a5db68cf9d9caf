"""Admin API tests reuse the gateway tests' database fixtures (a fresh migrated SQLite file, or a new Postgres
database when WARDEN_DATABASE_URL is set): loaded from tests/gateway/conftest.py, not copied."""

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from admin_support import auth, token_for
from fastapi.testclient import TestClient

from gateway.adminauth.roles import Role
from gateway.app import create_app
from gateway.core.settings import Settings

_GATEWAY_TESTS = Path(__file__).resolve().parents[1] / "gateway"
sys.path.insert(0, str(_GATEWAY_TESTS))  # gateway_support
sys.path.insert(0, str(Path(__file__).resolve().parent))  # admin_support (also used by tests/export)
_spec = importlib.util.spec_from_file_location("warden_gateway_fixtures", _GATEWAY_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

database_url = _fixtures.database_url
db = _fixtures.db
settings = _fixtures.settings


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    # No engine: a /v1 call that passes authentication and policy answers 503 and is audited with the
    # policy version in force, which is all these tests need from the edge.
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


@pytest.fixture
def platform(settings: Settings) -> dict[str, str]:
    return auth(token_for(settings, Role.PLATFORM_ADMIN))
