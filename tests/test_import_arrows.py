"""The import arrows of docs/architecture.md, read from the source with ``ast`` (every import counts: module level,
inside functions, and under ``TYPE_CHECKING``).

- The gateway reaches the engine only through ``engine.PUBLIC_MODULES``.
- ``engine`` imports neither ``gateway``, ``policies`` nor ``migrations``; ``kernels`` imports none of Warden's
  other packages; ``policies`` imports none either; nothing imports ``migrations`` (Alembic loads it by path).
- No runtime package imports ``bench``, the offline tooling (benchmarks, corpus generators, the prompt-injection
  dataset generator and trainer): it is not installed with Warden, and the gateway loads only their outputs.
- No cycle between the top-level packages, and none between modules through the imports that run when a module is
  imported.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gateway", "engine", "kernels", "policies", "migrations")
# Warden's own code that runs only offline: an import of it from a runtime package is an arrow no package may have.
OFFLINE = ("bench",)
# What each package may import of the others (the arrows of docs/architecture.md).
ALLOWED = {
    "gateway": {"policies", "engine"},
    "engine": {"kernels"},
    "kernels": set(),
    "policies": set(),
    "migrations": {"gateway"},
}


@cache
def public_engine_modules() -> frozenset[str]:
    # Loaded from its file: from this directory, ``import engine`` finds the test package tests/engine.
    spec = importlib.util.spec_from_file_location("warden_engine_package", ROOT / "engine" / "__init__.py")
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(package)
    return frozenset(package.PUBLIC_MODULES)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported_names(path: Path, source: str | None = None) -> Iterator[tuple[int, str, bool]]:
    """(line, module, deferred) for each import in the file (or in ``source``, read as that file's text); deferred:
    inside a function, run when it is called. ``from package import name`` names the submodule when ``name`` is one;
    relative imports are resolved against the file's package."""
    known = modules()
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]

    def visit(node: ast.AST, deferred: bool) -> Iterator[tuple[int, str, bool]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, deferred
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield node.lineno, candidate if candidate in known else base, deferred
        inside = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inside)

    text = path.read_text(encoding="utf-8") if source is None else source
    yield from visit(ast.parse(text, filename=str(path)), False)


@cache
def import_graph(*, deferred_too: bool = True) -> dict[str, dict[str, int]]:
    """Warden module → the Warden modules it imports (with the line of the first such import); without
    ``deferred_too``, only the imports that run when the module is imported (its body, ``TYPE_CHECKING`` blocks
    included)."""
    known = modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges: dict[str, int] = {}
        for line, target, deferred in imported_names(path):
            if is_warden(target) and target != name and (deferred_too or not deferred):
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def top(module: str) -> str:
    return module.split(".")[0]


def is_warden(module: str) -> bool:
    """Whether an imported module is Warden's own (a runtime package or the offline tooling), not a library."""
    return top(module) in PACKAGES or top(module) in OFFLINE


def where(source: str, line: int) -> str:
    return f"{modules()[source].relative_to(ROOT)}:{line}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph (as a closed path), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_the_public_engine_modules_exist() -> None:
    missing = sorted(name for name in public_engine_modules() if name not in modules())
    assert not missing, f"engine.PUBLIC_MODULES names modules that do not exist: {missing}"


def test_the_gateway_uses_only_the_public_engine_modules() -> None:
    wrong = [f"{where(source, line)} imports {target}"
             for source, edges in import_graph().items() if top(source) == "gateway"
             for target, line in edges.items()
             if top(target) == "engine" and target != "engine" and target not in public_engine_modules()]
    assert not wrong, "the gateway reaches past engine.PUBLIC_MODULES:\n" + "\n".join(wrong)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_what_its_arrows_allow(package: str) -> None:
    wrong = [f"{where(source, line)} imports {target}"
             for source, edges in import_graph().items() if top(source) == package
             for target, line in edges.items()
             if top(target) != package and top(target) not in ALLOWED[package]]
    assert not wrong, f"{package} may import only {sorted(ALLOWED[package])} of Warden's packages:\n" + "\n".join(wrong)


def test_no_runtime_module_imports_the_offline_tooling() -> None:
    # bench/ is not part of the installed distribution (pyproject's package list) nor of the image: a runtime import
    # of it, even one deferred into a function, would fail in production and drag training code into the gateway.
    wrong = [f"{where(source, line)} imports {target}"
             for source, edges in import_graph().items()
             for target, line in edges.items() if top(target) in OFFLINE]
    assert not wrong, "a runtime package imports the offline tooling:\n" + "\n".join(wrong)


def test_no_module_imports_the_migrations_package() -> None:
    # Alembic finds migrations/ by path (gateway.core.migrate); importing it would close gateway → migrations →
    # gateway (its env.py imports the gateway's models).
    wrong = [f"{where(source, line)} imports {target}"
             for source, edges in import_graph().items() if top(source) != "migrations"
             for target, line in edges.items() if top(target) == "migrations"]
    assert not wrong, "\n".join(wrong)


def test_no_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {package: set() for package in PACKAGES}
    for source, edges in import_graph().items():
        graph[top(source)].update(top(target) for target in edges if top(target) != top(source))
    cycle = find_cycle(graph)
    assert cycle is None, "packages import each other: " + " -> ".join(cycle or [])


def test_no_cycle_between_modules() -> None:
    # Imports inside functions do not count here: they run once both modules exist, so two modules of one package
    # may reach each other that way (between packages every import counts, above).
    graph = {source: set(edges) for source, edges in import_graph(deferred_too=False).items()}
    cycle = find_cycle(graph)
    assert cycle is None, "modules import each other: " + " -> ".join(cycle or [])


def test_the_checker_finds_cycles_and_names_submodules() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    # `from engine import generate`, inside a function, is a deferred arrow to the module engine.generate; the
    # TYPE_CHECKING import of EngineConfig in the settings runs with the module.
    assert ("engine.generate", True) in {(t, d) for _, t, d in imported_names(ROOT / "gateway" / "cli.py")}
    settings = {(t, d) for _, t, d in imported_names(ROOT / "gateway" / "core" / "settings.py")}
    assert ("engine.config", False) in settings and ("engine.config", True) in settings
    # An import of the injection trainer from the gateway, deferred or not, is an edge the arrows then reject.
    detector = ROOT / "gateway" / "guardrails" / "injection" / "detector.py"
    source = "from bench.injection import train\n\ndef retrain():\n    import bench.injection.dataset\n"
    found = {(t, d) for _, t, d in imported_names(detector, source)}
    assert found == {("bench.injection", False), ("bench.injection.dataset", True)}
    assert all(is_warden(target) and top(target) not in ALLOWED["gateway"] for target, _ in found)
    assert not is_warden("numpy") and not is_warden("benchmarks")


def diagram_arrows(markdown: str) -> set[tuple[str, str]]:
    """The package arrows of the first Mermaid block in ``markdown`` (``a --> b`` and ``a --> b & c`` lines)."""
    block = markdown.split("```mermaid", 1)[1].split("```", 1)[0]
    arrows: set[tuple[str, str]] = set()
    for line in block.splitlines():
        source, arrow, targets = line.partition("-->")
        if arrow:
            arrows.update((source.strip(), target.strip()) for target in targets.split("&"))
    return arrows


def test_the_architecture_diagram_draws_the_package_imports_as_they_are() -> None:
    # Each arrow between runtime packages in docs/architecture.md's diagram is an import that exists, and each
    # package-to-package import is drawn: the map cannot drift from the code in either direction.
    drawn = {(a, b) for a, b in diagram_arrows((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
             if a in PACKAGES and b in PACKAGES}
    actual = {(top(source), top(target)) for source, edges in import_graph().items()
              for target in edges if top(target) != top(source) and top(target) in PACKAGES}
    assert drawn == actual, f"drawn but not imported: {sorted(drawn - actual)}; imported but not drawn: " \
                            f"{sorted(actual - drawn)}"
    assert diagram_arrows("```mermaid\nflowchart LR\n    a --> b & c\n```") == {("a", "b"), ("a", "c")}
