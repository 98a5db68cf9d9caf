"""Compiled graphs saved whole and loaded at the next start without tracing them again.

Inductor's and AOTAutograd's caches spare a restart the code generation, but dynamo still traces the model's Python
bytecode at every start, which is most of what a cached compile costs. ``torch.compile(...).aot_compile`` captures
one graph with everything needed to run it (dynamo's guards and bytecode, AOTAutograd's wrappers, inductor's code),
which this module writes beside inductor's cache and reads back at the next start of the same configuration.

Saved graphs hold neither the weights nor anything of one process: they are called with the model as an argument,
and its parameters are the graph's inputs. That is why only graphs compiled without ``freezing`` are saved (a frozen
graph bakes the weights in as constants).

What a saved graph is valid for: its file lives under a digest of everything that shapes the graph and that
dynamo's serialisable guards do not check (``configuration_key``: the model's class and architecture, every
module's weight kinds and the kernels each linear calls, the parameters' shapes and dtypes, torch, Python, the
CPU's vector ISA, the C++ kernels' build, the compile options). At load, the code of every function the graph
was traced through is compared with the code now on disk (docstrings and comments aside, so an edit of those, which
also moves the lines below it, keeps the graph), and the graph's guards are checked on the first call.
A file that fails any of these, or cannot be read, is compiled again (and overwritten), with a log line.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib
import inspect
import logging
import platform
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import torch
from torch import nn

from kernels import dispatch

log = logging.getLogger(__name__)

PRECOMPILED_DIR = "warden-precompiled"

# Graphs loaded whole and graphs compiled and saved in this process (``CacheCounts`` reads them).
COUNTS: Counter[str] = Counter()


class AotFunction(Protocol):
    """What ``torch.compile(...).aot_compile`` returns (``torch._dynamo.aot_compile.AOTCompiledFunction``)."""

    def __call__(self, *args: Any) -> Any: ...

    def guard_check(self, *args: Any) -> bool: ...

    def disable_guard_check(self) -> None: ...

    def save_compiled_function(self, path: str) -> Any: ...

    def source_info(self) -> Any: ...


def decoder_graph(model: nn.Module, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The decoder's forward with the model as an argument, so a saved graph reads the weights of whichever model
    it is called with."""
    return model(input_ids, positions, None)


def lm_head_graph(model: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """The LM head's logits, like ``decoder_graph``."""
    return model.compute_logits(hidden)  # type: ignore[operator]


GRAPHS: dict[str, Callable[..., torch.Tensor]] = {"decoder": decoder_graph, "lm_head": lm_head_graph}


def _kernels_build() -> str:
    """The C++ kernels' build name: a digest of their sources, flags and this CPU's features."""
    try:
        from kernels import cpu

        return cpu.library_name()
    except Exception:  # no kernels package or no compiler: the graphs then call none of them
        return "no-cpu-kernels"


def _qualname(fn: object) -> str:
    if fn is None:
        return "-"
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__qualname__
    return f"{getattr(fn, '__module__', '')}.{name}"


def configuration_key(model: nn.Module, extra: Iterable[object]) -> str:
    """A digest of what the compiled graphs of ``model`` depend on beyond the guards a saved graph keeps: guards on
    object identity (which kernel function a linear calls) and on globals are not serialisable, so those choices
    are in the key instead. ``extra``: the compile's own settings (freezing, the row bound, inductor's options)."""
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        digest.update("|".join(map(str, parts)).encode() + b"\n")

    add(torch.__version__, platform.python_version(), torch.backends.cpu.get_cpu_capability(), _kernels_build())
    # Which attention op the layers call (the C++ one where its kernels serve): chosen at trace time, no guard.
    add("attend_step" if dispatch.cpu_attention_step_runs() else "paged_attention")
    add(type(model).__module__, type(model).__qualname__, repr(getattr(model, "config", None)))
    for name, module in model.named_modules():
        add(name, type(module).__qualname__, getattr(module, "quant_kind", None),
            getattr(module, "quant_max_rows", None), getattr(module, "quant_kernel_rows", None),
            _qualname(getattr(module, "quant_kernel", None)), _qualname(getattr(module, "quant_kernel_up_to", None)))
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        add(name, tuple(tensor.shape), tensor.dtype, tensor.device.type)
    add(*extra)
    return digest.hexdigest()[:32]


def _code_of(node: ast.AST) -> str:
    """What a function computes: its syntax tree without docstrings (of it and of what it nests) or positions
    (comments are not in the tree)."""
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body and \
                isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant) and \
                isinstance(n.body[0].value.value, str):
            n.body = n.body[1:] or [ast.Pass()]
    return ast.dump(node)


def _saved_function(content: str, firstlineno: int, lastlineno: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function at these lines of a module's source as it was when the graph was traced (None if the lines
    are not one whole function)."""
    lines = content.splitlines(keepends=True)[firstlineno - 1:lastlineno]
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    if len(tree.body) == 1 and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return tree.body[0]
    return None


def _same_code_elsewhere(module: ModuleType, saved: ast.FunctionDef | ast.AsyncFunctionDef | None,
                         parsed: dict[str, ast.Module]) -> bool:
    """Whether ``module`` as on disk now defines a function of the same name and the same code as ``saved``: an edit
    of docstrings or comments, here or anywhere above it in the file (which moves its lines), changes neither
    what the graph computes nor what it was traced through."""
    if saved is None:
        return False
    if module.__name__ not in parsed:
        parsed[module.__name__] = ast.parse(inspect.getsource(module))
    code = _code_of(saved)
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == saved.name and
               _code_of(copy.deepcopy(n)) == code for n in ast.walk(parsed[module.__name__]))


def _stale_sources(fn: AotFunction) -> list[str]:
    """The functions the graph was traced through whose code differs from the module on disk now (docstrings,
    comments and positions aside)."""
    from torch._dynamo.package import _hash_sourcelines  # the digest dynamo's own packages compare

    stale = []
    parsed: dict[str, ast.Module] = {}  # each module's current source, parsed once
    for source in fn.source_info().inlined_sources:
        try:
            module = importlib.import_module(source.module)
            fresh = _hash_sourcelines(module, source.firstlineno, source.lastlineno) == source.checksum or \
                _same_code_elsewhere(module, _saved_function(source.content, source.firstlineno, source.lastlineno),
                                     parsed)
        except Exception:  # a module gone or unreadable: the graph is as stale as can be
            fresh = False
        if not fresh:
            stale.append(f"{source.module}:{source.firstlineno}")
    return stale


class PrecompiledGraphs:
    """The saved graphs of one configuration: ``<root>/warden-precompiled/<configuration_key>/<graph>.bin``."""

    def __init__(self, root: Path, key: str) -> None:
        self.directory = root / PRECOMPILED_DIR / key

    def path(self, graph: str) -> Path:
        return self.directory / f"{graph}.bin"

    def load(self, graph: str) -> AotFunction | None:
        """The saved graph, or None when there is none or it cannot serve (logged, never raised)."""
        path = self.path(graph)
        if not path.is_file():
            return None
        try:
            with path.open("rb") as file:
                fn: AotFunction = torch.compiler.load_compiled_function(file)  # type: ignore[assignment]
            stale = _stale_sources(fn)
        except Exception as exc:  # corrupt, truncated, or from an incompatible torch: compile it
            log.warning("precompiled graph %s unreadable (%s: %s); compiling it again", path, type(exc).__name__,
                        str(exc)[:200])
            return None
        if stale:
            log.warning("precompiled graph %s was traced through code changed since (%s); compiling it again", path,
                        ", ".join(stale[:5]))
            return None
        return fn

    def save(self, graph: str, fn: AotFunction) -> None:
        """Write the graph for the next start (atomically). Best effort: a failure only costs the next start time."""
        path = self.path(graph)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fn.save_compiled_function(str(path))
        except Exception as exc:  # a read-only or full disk, or a graph that cannot be serialised
            log.warning("precompiled graph %s not saved (%s: %s); the next start traces it again", path,
                        type(exc).__name__, str(exc)[:200])
            return
        COUNTS["saved"] += 1
