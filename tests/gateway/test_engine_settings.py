"""WARDEN_ENGINE_* settings reach the engine's EngineConfig, and bad values stop startup with a clear message."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from engine import launch
from engine.config import EngineConfig
from gateway import app as app_module
from gateway import cli
from gateway.core.engine_settings import EngineSettings
from gateway.core.settings import Settings


def test_every_engine_setting_is_an_engine_config_field() -> None:
    # A setting the EngineConfig does not know would be silently dropped; a renamed field must fail here.
    config_fields = {f.name for f in dataclasses.fields(EngineConfig)}
    assert set(EngineSettings.model_fields) - EngineSettings.GATEWAY_ONLY <= config_fields
    assert not EngineSettings.GATEWAY_ONLY & config_fields  # a gateway-only name must not shadow an engine switch


def test_environment_reaches_engine_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_DTYPE", "bfloat16")
    monkeypatch.setenv("WARDEN_ENGINE_QUANTIZATION", "int4")
    monkeypatch.setenv("WARDEN_ENGINE_MAX_NUM_SEQS", "8")
    monkeypatch.setenv("WARDEN_ENGINE_KV_CACHE_MEMORY_MB", "64")
    monkeypatch.setenv("WARDEN_ENGINE_ENABLE_PREFIX_CACHING", "false")
    monkeypatch.setenv("WARDEN_ENGINE_NUM_THREADS", "1")
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_METHOD", "ngram")
    monkeypatch.setenv("WARDEN_ENGINE_NUM_SPECULATIVE_TOKENS", "6")
    monkeypatch.setenv("WARDEN_ENGINE_TENSOR_PARALLEL_SIZE", "3")
    monkeypatch.setenv("WARDEN_ENGINE_CPU_SMALL_BATCH_ROWS", "4")
    monkeypatch.setenv("WARDEN_MODEL", "default")
    settings = Settings(_env_file=None)
    config = settings.engine_config()
    assert (config.dtype, config.quantization, config.max_num_seqs) == ("bfloat16", "int4", 8)
    assert (config.kv_cache_memory_mb, config.enable_prefix_caching, config.num_threads) == (64, False, 1)
    assert (config.speculative_method, config.num_speculative_tokens) == ("ngram", 6)
    assert (config.tensor_parallel_size, config.cpu_small_batch_rows) == (3, 4)


def test_a_draft_model_reaches_engine_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_METHOD", "draft_model")
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_MODEL", "default")
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_MODEL_QUANTIZATION", "int4")
    settings = Settings(_env_file=None)
    config = settings.engine_config()
    assert (config.speculative_method, config.speculative_model) == ("draft_model", "default")
    assert config.speculative_model_quantization == "int4"
    monkeypatch.delenv("WARDEN_ENGINE_SPECULATIVE_MODEL")
    with pytest.raises(ValidationError, match="SPECULATIVE_MODEL"):  # the method without a model to draft with
        Settings(_env_file=None)


def test_the_suffix_speculator_and_its_bounds_reach_engine_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_METHOD", "suffix")
    monkeypatch.setenv("WARDEN_ENGINE_SUFFIX_TENANT_TOKENS", "2048")
    monkeypatch.setenv("WARDEN_ENGINE_SUFFIX_TOTAL_TOKENS", "8192")
    monkeypatch.setenv("WARDEN_ENGINE_SUFFIX_MIN_PROBABILITY", "0.25")
    config = Settings(_env_file=None).engine_config()
    assert config.speculative_method == "suffix"
    assert (config.suffix_tenant_tokens, config.suffix_total_tokens, config.suffix_min_probability) == (
        2048, 8192, 0.25)
    monkeypatch.setenv("WARDEN_ENGINE_SUFFIX_TENANT_TOKENS", "8193")  # one tenant may not outgrow the whole index
    with pytest.raises(ValidationError, match="SUFFIX_TENANT_TOKENS"):
        Settings(_env_file=None)


def test_defaults_match_engine_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in EngineSettings.model_fields:
        monkeypatch.delenv(f"WARDEN_ENGINE_{name.upper()}", raising=False)
    kwargs = EngineSettings(_env_file=None).engine_kwargs("default")
    defaults = EngineConfig()
    # One deliberate difference: the server serves the fast profile, the library defaults to the exact one.
    assert (kwargs.pop("profile"), defaults.profile) == ("fast", "exact")
    assert {k: v for k, v in kwargs.items()} == {k: getattr(defaults, k) for k in kwargs}


@pytest.mark.parametrize(("name", "value"), [
    ("DTYPE", "bf16"), ("QUANTIZATION", "int3"), ("BLOCK_SIZE", "24"), ("MAX_NUM_SEQS", "0"),
    ("TENANT_KV_QUOTA", "1.5"), ("DEVICE", "tpu"), ("SPECULATIVE_METHOD", "eagle"), ("NUM_SPECULATIVE_TOKENS", "0"),
    ("REPLICAS", "0"), ("TENSOR_PARALLEL_SIZE", "0"), ("SPECULATIVE_MODEL_QUANTIZATION", "int2"),
    ("CPU_SMALL_BATCH_ROWS", "0"), ("NUM_STATE_SLOTS", "-1"), ("NUM_STATE_SNAPSHOTS", "-1"),
    ("NUM_STATE_SLOTS", "65"), ("NUM_STATE_SNAPSHOTS", "many"), ("BLOCK_SIZE", "0"),
    ("SUFFIX_TENANT_TOKENS", "0"), ("SUFFIX_MIN_PROBABILITY", "1.5"),
])
def test_bad_values_are_rejected(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(f"WARDEN_ENGINE_{name}", value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)


def test_state_cache_sizes_reach_the_engine_and_zero_slots_means_sized_from_the_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_MODEL", "default")
    monkeypatch.delenv("WARDEN_ENGINE_BLOCK_SIZE", raising=False)
    monkeypatch.setenv("WARDEN_ENGINE_NUM_STATE_SLOTS", "3")
    monkeypatch.setenv("WARDEN_ENGINE_NUM_STATE_SNAPSHOTS", "0")
    config = Settings(_env_file=None).engine_config()
    assert (config.num_state_slots, config.num_state_snapshots, config.block_size) == (3, 0, None)
    monkeypatch.setenv("WARDEN_ENGINE_NUM_STATE_SLOTS", "0")
    monkeypatch.setenv("WARDEN_ENGINE_MAX_NUM_SEQS", "4")
    monkeypatch.setenv("WARDEN_ENGINE_BLOCK_SIZE", "128")
    config = Settings(_env_file=None).engine_config()
    assert (config.num_state_slots, config.num_state_snapshots, config.block_size) == (None, 0, 128)
    monkeypatch.setenv("WARDEN_ENGINE_NUM_STATE_SLOTS", "5")
    with pytest.raises(ValidationError, match=r"NUM_STATE_SLOTS \(5\) exceeds WARDEN_ENGINE_MAX_NUM_SEQS \(4\)"):
        Settings(_env_file=None)


def test_replicas_are_read_by_the_gateway_not_passed_to_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WARDEN_ENGINE_REPLICAS", raising=False)
    assert Settings(_env_file=None).engine.replicas == 1
    monkeypatch.setenv("WARDEN_ENGINE_REPLICAS", "2")
    settings = Settings(_env_file=None)
    assert settings.engine.replicas == 2
    assert "replicas" not in settings.engine.engine_kwargs(settings.model)


def test_an_inverted_prompt_lookup_range_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_PROMPT_LOOKUP_MIN", "5")
    monkeypatch.setenv("WARDEN_ENGINE_PROMPT_LOOKUP_MAX", "3")
    with pytest.raises(ValidationError, match="prompt_lookup_min"):
        Settings(_env_file=None)


def test_cli_names_the_bad_variable(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_DTYPE", "bf16")
    assert cli.main(["db", "upgrade"]) == 1
    err = capsys.readouterr().err
    assert "WARDEN_ENGINE_DTYPE" in err and "bfloat16" in err
    assert "bf16" not in err.replace("bfloat16", "")  # values are never echoed (some settings are secrets)


async def test_gateway_starts_the_engine_with_these_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[EngineConfig, bool]] = []

    class FakeEngine:  # what the gateway's supervised pool of one reads from its replica
        model_name, max_model_len, tokenizer = "fake", 512, None

        def is_alive(self) -> bool:
            return True

        async def shutdown(self) -> None:
            return None

    async def fake_start(config: EngineConfig, *, in_process: bool = False) -> object:
        started.append((config, in_process))
        return FakeEngine()

    monkeypatch.setattr(launch, "start_engine", fake_start)
    monkeypatch.setenv("WARDEN_ENGINE_MAX_MODEL_LEN", "512")
    monkeypatch.setenv("WARDEN_ENGINE_SERVED_MODEL_NAME", "acme-small")
    engine = await app_module._start_engine(Settings(_env_file=None, engine_in_process=True))
    await engine.shutdown()
    (config, in_process), = started
    assert (config.max_model_len, config.served_model_name, in_process) == (512, "acme-small", True)


def test_speculation_defaults_to_auto_and_none_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # "auto" reaches the engine as it is: the engine settles it once it knows the device and the model's layers.
    monkeypatch.delenv("WARDEN_ENGINE_SPECULATIVE_METHOD", raising=False)
    assert Settings(_env_file=None).engine_config().speculative_method == "auto"
    monkeypatch.setenv("WARDEN_ENGINE_SPECULATIVE_METHOD", "none")
    assert Settings(_env_file=None).engine_config().speculative_method is None
