"""Graphs saved whole (``engine.worker.precompiled``): keyed on what their guards do not check, and never served
when the file is corrupt or the code they were traced through has changed since."""

from __future__ import annotations

import importlib
import linecache
import logging
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

from engine.worker import precompiled
from engine.worker.precompiled import PrecompiledGraphs, configuration_key

_GRAPH_SOURCE = '''{header}
import torch


def scaled(model, x):{doc}
    return torch.relu(model(x)) * {factor}  # a comment
'''


class _QuantLinear(nn.Linear):
    """Stands for engine.layers.linear.Linear: which kernel it calls is an attribute no saved guard checks."""

    def __init__(self, kernel: object) -> None:
        super().__init__(8, 8)
        self.quant_kind, self.quant_kernel = "int4", kernel


def _kernel_a(x: torch.Tensor) -> torch.Tensor:
    return x


def _kernel_b(x: torch.Tensor) -> torch.Tensor:
    return x


def test_the_key_names_the_kernels_weights_and_settings() -> None:
    base = configuration_key(_QuantLinear(_kernel_a), ["rows-65536"])
    assert configuration_key(_QuantLinear(_kernel_a), ["rows-65536"]) == base  # another process, the same model
    assert configuration_key(_QuantLinear(_kernel_b), ["rows-65536"]) != base  # another kernel in the graph
    assert configuration_key(_QuantLinear(_kernel_a).to(torch.bfloat16), ["rows-65536"]) != base
    assert configuration_key(_QuantLinear(_kernel_a), ["rows-4096"]) != base
    other_kind = _QuantLinear(_kernel_a)
    other_kind.quant_kind = "int8"
    assert configuration_key(other_kind, ["rows-65536"]) != base


def _graph_module(directory: Path, factor: str, header: str = "", doc: str = "") -> object:
    """A module holding the traced function, written to disk so a test can change its source like an upgrade."""
    (directory / "warden_test_graph.py").write_text(_GRAPH_SOURCE.format(factor=factor, header=header, doc=doc))
    linecache.clearcache()
    if "warden_test_graph" in sys.modules:
        return importlib.reload(sys.modules["warden_test_graph"])
    return importlib.import_module("warden_test_graph")


@pytest.mark.slow  # compiles a small graph with inductor: ~10 s on an idle CPU, about a minute on a busy one
def test_a_saved_graph_serves_until_its_file_or_its_source_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    module = _graph_module(tmp_path, "2.0")
    model, x = nn.Linear(4, 4), torch.randn(3, 4)
    expected = torch.relu(model(x)) * 2.0
    store = PrecompiledGraphs(tmp_path / "cache", "k")
    compiled = torch.compile(module.scaled, fullgraph=True).aot_compile(((model, x), {}))  # type: ignore[attr-defined]
    saved_before = precompiled.COUNTS["saved"]
    store.save("scaled", compiled)
    assert precompiled.COUNTS["saved"] == saved_before + 1 and store.path("scaled").is_file()

    # Another model of the same shape: its weights are the graph's inputs, not the saved one's.
    loaded = store.load("scaled")
    assert loaded is not None
    other = nn.Linear(4, 4)
    assert loaded.guard_check(other, x)
    torch.testing.assert_close(loaded(other, x), torch.relu(other(x)) * 2.0)
    torch.testing.assert_close(loaded(model, x), expected)
    assert not loaded.guard_check(model, x.to(torch.float64))  # what its guards do check, they still check

    # Docstrings and comments edited since, moving the function's lines: served (the same code).
    _graph_module(tmp_path, "2.0", header='"""The module\'s new docstring,\nover two lines."""\n# and a comment\n',
                  doc='\n    """A docstring of its own."""\n    # and a comment of its own')
    assert store.load("scaled") is not None

    # The function it was traced through edited since: not served (it would run the old code).
    _graph_module(tmp_path, "3.0 + 0.0")
    with caplog.at_level(logging.WARNING, logger=precompiled.__name__):
        assert store.load("scaled") is None
    assert "traced through code changed since (warden_test_graph:" in caplog.text

    # A corrupt file: not served, and said so.
    caplog.clear()
    store.path("scaled").write_bytes(b"\x80\x04not a pickle")
    with caplog.at_level(logging.WARNING, logger=precompiled.__name__):
        assert store.load("scaled") is None
    assert "unreadable" in caplog.text
    assert PrecompiledGraphs(tmp_path / "cache", "other").load("scaled") is None  # nothing saved: silently None


def test_a_failed_save_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache's directory would go
    store = PrecompiledGraphs(blocked, "k")

    class Unsavable:
        def save_compiled_function(self, path: str) -> None:
            raise AssertionError("never reached: the directory cannot be made")

    with caplog.at_level(logging.WARNING, logger=precompiled.__name__):
        store.save("decoder-1", Unsavable())  # type: ignore[arg-type]
    assert "not saved" in caplog.text
