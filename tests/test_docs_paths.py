"""The README and docs/ name only files that exist: every repository path in backticks and every relative link to
another page, so a moved module or a renamed page shows up here instead of in a reader's dead end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `engine/llm_engine.py`, `bench/results/` … (not globs or placeholders such as `bench/results/*.json`, `<checkout>`)
REPOSITORY_PATH = re.compile(r"`((?:bench|deploy|docs|engine|gateway|kernels|migrations|policies|tests)/[\w./-]*)`")
# [text](other.md) or [text](docs/other.md#anchor): pages of this repository, not URLs
PAGE_LINK = re.compile(r"\]\(((?!https?:)[\w./-]+\.md)(?:#[\w-]*)?\)")


def named_paths(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    paths = REPOSITORY_PATH.findall(text)
    paths += [str((page.parent / link).resolve().relative_to(ROOT)) for link in PAGE_LINK.findall(text)]
    return paths


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page: Path) -> None:
    missing = sorted({path for path in named_paths(page) if not (ROOT / path.rstrip("/")).exists()})
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_patterns_find_paths_and_page_links() -> None:
    page = ROOT / "docs" / "example.md"  # resolved against docs/, never written
    text = "See `engine/llm_engine.py`, [ops](operations.md#faults), [web](https://x.org/a.md), `bench/results/*.json`."
    assert REPOSITORY_PATH.findall(text) == ["engine/llm_engine.py"]
    assert [str((page.parent / link).resolve().relative_to(ROOT)) for link in PAGE_LINK.findall(text)] == [
        "docs/operations.md"]
