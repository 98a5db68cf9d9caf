"""MCP tests reuse the gateway tests' database fixtures (a fresh migrated SQLite file, or a new Postgres database when
WARDEN_DATABASE_URL is set), loaded from tests/gateway/conftest.py, and serve Warden and the upstreams on loopback."""

import importlib.util
import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis import Redis

_TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_TESTS / "gateway"))  # gateway_support
sys.path.insert(0, str(_TESTS / "admin"))  # admin_support
sys.path.insert(0, str(Path(__file__).resolve().parent))  # mcp_support
_spec = importlib.util.spec_from_file_location("warden_gateway_fixtures", _TESTS / "gateway" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

from mcp_support import UPSTREAM_TOKEN, Served, guarded_upstream_app, malformed_app, serve, upstream_app  # noqa: E402

from gateway.app import create_app  # noqa: E402
from gateway.core.settings import Settings  # noqa: E402
from gateway.ratelimit import RateLimiter, build_limiter  # noqa: E402

database_url = _fixtures.database_url
db = _fixtures.db


@pytest.fixture(scope="session")
def warden_settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(database_url=database_url, data_dir=tmp_path_factory.mktemp("mcp-warden"),
                    server_secret="mcp-test-secret", redis_url=None, key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0,
                    audit_flush_interval_s=0.05, audit_checkpoint_interval_s=0)


@pytest.fixture(scope="session")
def warden(warden_settings: Settings) -> Iterator[Served]:
    """Warden without an engine (tool calls need none), with its real guardrails, on a loopback port."""
    served = serve(create_app(warden_settings, start_engine=False))
    yield served
    served.stop()


@pytest.fixture(scope="session")
def upstream() -> Iterator[Served]:
    served = serve(upstream_app("tools"))
    yield served
    served.stop()


@pytest.fixture(scope="session")
def malformed_upstream() -> Iterator[Served]:
    served = serve(malformed_app())
    yield served
    served.stop()


@pytest.fixture(scope="session")
def guarded_upstream() -> Iterator[Served]:
    served = serve(guarded_upstream_app("guarded", UPSTREAM_TOKEN))
    yield served
    served.stop()


REDIS_URL = os.environ.get("WARDEN_REDIS_URL")


@pytest.fixture(params=["in_process", pytest.param("redis", marks=pytest.mark.redis)])
async def limiter(request: pytest.FixtureRequest) -> AsyncIterator[RateLimiter]:
    """The tool-call limiter tests' limiter: in-process, and on Redis (keys under a fresh prefix, removed after)."""
    if request.param == "in_process":
        built = build_limiter(None)
        yield built
        await built.aclose()
        return
    if not REDIS_URL:
        pytest.skip("WARDEN_REDIS_URL is not set")
    prefix = f"wdn:test-mcp:{uuid.uuid4().hex[:8]}"
    built = build_limiter(REDIS_URL, key_prefix=prefix)
    try:
        yield built
    finally:
        await built.aclose()
        client = Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)
        client.close()
