"""Every committed benchmark result says which command reproduces it and which machine it ran on, and
docs/benchmarks.md is the page docs/gen_benchmarks.py renders from them, with no git revisions in it."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench.provenance import describe_machine, with_provenance

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_benchmarks", REPO / "docs" / "gen_benchmarks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def provenance_problems(name: str, data: dict[str, Any]) -> list[str]:
    provenance = data.get("provenance")
    if not isinstance(provenance, dict):
        return [f"{name}: no provenance object"]
    problems = []
    command = provenance.get("command")
    if not isinstance(command, str) or not command.startswith("python -m bench."):
        problems.append(f"{name}: provenance.command is {command!r}, not a `python -m bench.…` command line")
    machine = provenance.get("machine")
    if not isinstance(machine, str) or not machine.strip():
        problems.append(f"{name}: provenance.machine is {machine!r}")
    return problems


def test_every_results_file_names_its_command_and_machine() -> None:
    files = sorted(RESULTS.glob("*.json"))
    assert files, f"no results in {RESULTS}"
    problems = []
    for path in files:
        data = json.loads(path.read_text())
        problems += provenance_problems(path.name, data)
        if isinstance(data.get("stub_engine"), dict):  # a second run's results inside the same file
            problems += provenance_problems(f"{path.name} stub_engine", data["stub_engine"])
    assert not problems, "\n".join(problems)


def test_a_results_file_without_provenance_is_named() -> None:
    assert provenance_problems("x.json", {"tok_s": 1.0}) == ["x.json: no provenance object"]
    assert provenance_problems("x.json", {"provenance": {"command": "bench", "machine": ""}}) == [
        "x.json: provenance.command is 'bench', not a `python -m bench.…` command line",
        "x.json: provenance.machine is ''"]


def test_docs_benchmarks_md_is_rendered_from_the_results(generator: ModuleType) -> None:
    assert generator.DOC.read_text() == generator.render(), \
        "docs/benchmarks.md is out of date: run .venv/bin/python docs/gen_benchmarks.py"


def test_the_benchmarks_page_shows_every_results_file_with_its_provenance(generator: ModuleType) -> None:
    page = generator.render()
    for path in sorted(RESULTS.glob("*.json")):
        assert f"bench/results/{path.name}" in page or f"`{path.name}`" in page, path.name
        assert json.loads(path.read_text())["provenance"]["command"] in page, path.name


def test_the_benchmarks_page_and_readme_carry_no_git_revisions(generator: ModuleType) -> None:
    for doc in (generator.DOC, REPO / "README.md"):
        found = generator.REVISION.findall(doc.read_text())
        assert not found, f"{doc.relative_to(REPO)} names git revisions {found}: provenance stays in the JSON"
    assert generator.REVISION.findall("measured at d085ccd, 6b41512") == ["d085ccd", "6b41512"]
    assert generator.REVISION.findall("2,900 tests, 1234567 rows, deadbeef") == []


def test_a_benchmark_run_writes_its_command_line_and_machine(tmp_path: Path) -> None:
    (tmp_path / "tiny_bench.py").write_text(textwrap.dedent("""
        import sys
        from pathlib import Path
        from bench.provenance import write_results
        write_results(Path(sys.argv[-1]), {"tok_s": 1.5})
    """))
    out = tmp_path / "results" / "tiny.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "tiny_bench", "--rounds", "3", "two words", str(out)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, check=True)
    assert f"wrote {out}" in done.stdout
    written = json.loads(out.read_text())
    assert written["tok_s"] == 1.5
    assert written["provenance"]["command"] == f"python -m tiny_bench --rounds 3 'two words' {out}"
    assert f"{os.cpu_count()} CPUs" in written["provenance"]["machine"]


def test_an_explicit_command_is_kept() -> None:
    report = with_provenance({"a": 1}, command="python -m bench.chaos --only SCENARIO --merge")
    assert report == {"a": 1, "provenance": {"command": "python -m bench.chaos --only SCENARIO --merge",
                                             "machine": describe_machine()}}


def test_the_stub_engine_run_keeps_its_own_provenance_in_the_shared_file(tmp_path: Path) -> None:
    from bench.gateway_overhead import _write_keeping_stub
    from bench.overhead_stub import merge_into

    results = tmp_path / "gateway_overhead.json"
    stub = with_provenance({"load": {}}, command="python -m bench.gateway_overhead --stub-engine")
    merge_into(results, stub)  # alone in the file: its provenance is the file's too
    assert json.loads(results.read_text())["provenance"] == stub["provenance"]
    real = with_provenance({"sequential": {}}, command="python -m bench.gateway_overhead")
    _write_keeping_stub(results, real)
    data = json.loads(results.read_text())
    assert data["provenance"] == real["provenance"] and data["stub_engine"]["provenance"] == stub["provenance"]
    assert provenance_problems("gateway_overhead.json", data) == []


def test_the_readme_headline_commands_are_the_commands_of_committed_results() -> None:
    readme = (REPO / "README.md").read_text()
    table = readme.split("## Headline numbers", 1)[1].split("\n## ", 1)[0]
    commands = [row.rstrip().rstrip("|").rsplit("|", 1)[-1].strip().strip("`") for row in table.splitlines()
                if row.startswith("| ") and "python -m bench." in row]
    assert len(commands) >= 5, table
    recorded = [json.loads(path.read_text())["provenance"]["command"] for path in sorted(RESULTS.glob("*.json"))]
    unknown = [command for command in commands if not any(r.startswith(command) for r in recorded)]
    assert not unknown, f"README headline commands no committed result was measured with: {unknown}"
