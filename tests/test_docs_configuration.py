"""docs/configuration.md documents every WARDEN_* and WARDEN_ENGINE_* setting, as the settings classes define it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from gateway.core.engine_settings import EngineSettings
from gateway.core.settings import Settings

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_configuration", REPO / "docs" / "gen_configuration.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_setting_has_a_meaning(generator: ModuleType) -> None:
    assert generator.documented_problems() == []


def test_the_page_is_what_the_settings_render(generator: ModuleType) -> None:
    page = (REPO / "docs" / "configuration.md").read_text()
    assert generator.current_block(page) == generator.render(), (
        "docs/configuration.md is out of date: run .venv/bin/python docs/gen_configuration.py")


def test_every_variable_appears_in_the_page_with_its_default() -> None:
    """Independent of the generator: each variable has one table row, and that row shows the model's default."""
    page = (REPO / "docs" / "configuration.md").read_text()
    variables = [(f"WARDEN_{n.upper()}", f) for n, f in Settings.model_fields.items() if n != "engine"]
    variables += [(f"WARDEN_ENGINE_{n.upper()}", f) for n, f in EngineSettings.model_fields.items()]
    for env, field in variables:
        rows = [line for line in page.splitlines() if line.startswith(f"| `{env}` |")]
        assert len(rows) == 1, f"{env}: {len(rows)} table rows"
        default = field.get_default(call_default_factory=True)
        if isinstance(default, (int, float, str)) and not isinstance(default, bool) and default != "":
            assert re.search(rf"`{re.escape(str(default))}`", rows[0]), f"{env}: default {default!r} not shown"


def test_no_row_names_a_setting_that_does_not_exist() -> None:
    page = (REPO / "docs" / "configuration.md").read_text()
    known = {f"WARDEN_{n.upper()}" for n in Settings.model_fields if n != "engine"}
    known |= {f"WARDEN_ENGINE_{n.upper()}" for n in EngineSettings.model_fields}
    in_tables = set(re.findall(r"^\| `(WARDEN_[A-Z0-9_]+)` \| ", page, flags=re.MULTILINE))
    assert in_tables <= known | set(RUNTIME_VARIABLES), sorted(in_tables - known)


# Read with os.environ outside the settings classes (engine and kernels stay free of the gateway's settings);
# the page lists them in their own table.
RUNTIME_VARIABLES = ("WARDEN_KERNELS", "WARDEN_CUDA_GRAPHS", "WARDEN_ENGINE_LOG", "WARDEN_ENGINE_MAX_BACKLOG_MIB")


def test_runtime_variables_are_documented_and_still_read() -> None:
    page = (REPO / "docs" / "configuration.md").read_text()
    sources = "\n".join(p.read_text() for d in ("engine", "kernels", "gateway") for p in (REPO / d).rglob("*.py"))
    for env in RUNTIME_VARIABLES:
        assert f"| `{env}` |" in page, env
        assert f'"{env}"' in sources, f"{env} is documented but nothing reads it"
