"""``speculative_method="auto"`` (the default): suffix drafting where the benchmarks measure that it pays (the fast
profile on a CPU, with the adaptive draft budget, a model without Mamba2 layers), off everywhere else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from engine.config import EngineConfig, auto_speculation
from engine.llm import LLM
from tests.engine.tiny_hybrid_models import write_tiny_state_space_checkpoint

# The fast profile without compiling at start (the decoder's graphs would take minutes; speculation does not
# depend on them).
FAST_EAGER: dict[str, Any] = dict(profile="fast", compile_model=False, show_progress=False, num_kv_blocks=64,
                                  block_size=8)


@pytest.mark.parametrize(("profile", "device", "adaptive", "recurrent", "expected"), [
    ("fast", "cpu", True, False, "suffix"),
    ("exact", "cpu", True, False, None),  # outputs independent of the batch: no verification rows
    ("fast", "cuda", True, False, None),  # no GPU run measures speculation against none
    ("fast", "cpu", False, False, None),  # every proposal verified: nothing stops drafts that do not pay
    ("fast", "cpu", True, True, None),  # a recurrent state cannot be rolled back past rejected drafts
])
def test_auto_drafts_by_suffix_only_where_it_is_measured_to_pay(profile, device, adaptive, recurrent, expected):
    assert auto_speculation(profile, device, adaptive=adaptive, recurrent_state=recurrent) == expected
    config = EngineConfig(profile=profile, prompt_lookup_adaptive=adaptive)
    assert config.speculative_method == "auto"  # the default
    resolved = config.with_speculation_for(torch.device(device), recurrent_state=recurrent)
    assert resolved.speculative_method == expected


@pytest.mark.parametrize("method", [None, "ngram", "suffix"])
def test_an_explicit_method_is_kept_whatever_the_machine(method):
    config = EngineConfig(profile="fast", speculative_method=method)
    assert config.with_speculation_for(torch.device("cuda"), recurrent_state=False).speculative_method == method
    assert config.with_speculation_for(torch.device("cpu"), recurrent_state=False).speculative_method == method


def test_the_fast_cpu_engine_speculates_by_suffix_and_the_exact_one_does_not(tiny_llama_dir: Path) -> None:
    fast = LLM(EngineConfig(model=str(tiny_llama_dir), **FAST_EAGER)).engine
    assert fast.config.speculative_method == "suffix"
    assert fast.speculator is not None and fast.speculator.suffixes is not None
    assert fast.speculator.acceptance is not None  # the adaptive draft budget decides what is verified
    exact = LLM(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64, block_size=8)).engine
    assert exact.config.speculative_method is None and exact.speculator is None


def test_a_mamba2_model_under_the_fast_profile_starts_without_speculation(tmp_path: Path) -> None:
    """An explicit method is refused for a model with Mamba2 layers; "auto" leaves speculation off instead."""
    directory = tmp_path / "mamba2"
    write_tiny_state_space_checkpoint(directory, "mamba2")
    engine = LLM(EngineConfig(model=str(directory), **FAST_EAGER)).engine
    assert engine.config.speculative_method is None and engine.speculator is None
    with pytest.raises(ValueError, match="speculative decoding is not supported"):
        LLM(EngineConfig(model=str(directory), speculative_method="suffix", **FAST_EAGER))
