"""The Mamba2 mixer and its per-sequence state against transformers' torch path (``Mamba2Mixer``, and
Nemotron-H's ``NemotronHMamba2Mixer``, with a ``DynamicCache``), on tiny random-weight layers.

Tolerance: float32 throughout; outputs (magnitude ~0.1-1) and states agree with transformers to ``ATOL``/``RTOL``
below. The two sides sum in different orders (different chunk sizes, chunk alignment, per-step vs chunked scan), so
equality is to rounding, not bitwise.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from transformers import DynamicCache, Mamba2Config, NemotronHConfig
from transformers.models.mamba2.modeling_mamba2 import Mamba2Mixer as HFMamba2Mixer
from transformers.models.nemotron_h.modeling_nemotron_h import NemotronHMamba2Mixer

from engine.layers.mamba2 import (
    Mamba2BatchMetadata,
    Mamba2Mixer,
    Mamba2MixerConfig,
    Mamba2StateCache,
)
from kernels.reference.causal_conv1d import causal_conv1d_decode, causal_conv1d_prefill
from kernels.reference.ssm import ssd_chunk_scan, ssd_decode_step

ATOL, RTOL = 2e-5, 1e-4
HIDDEN = 32


def close(actual: torch.Tensor, expected: torch.Tensor) -> None:
    torch.testing.assert_close(actual, expected, atol=ATOL, rtol=RTOL)


@pytest.fixture(scope="module")
def hf_config() -> Mamba2Config:
    # 8 heads of 8 in 2 groups (4 heads share a B/C group), kernel 4, HF's chunks of 8, biases everywhere.
    return Mamba2Config(hidden_size=HIDDEN, expand=2, num_heads=8, head_dim=8, state_size=16, n_groups=2,
                        conv_kernel=4, chunk_size=8, num_hidden_layers=1, vocab_size=64, use_bias=True)


@pytest.fixture(scope="module")
def hf_mixer(hf_config: Mamba2Config) -> HFMamba2Mixer:
    torch.manual_seed(0)
    mixer = HFMamba2Mixer(hf_config, layer_idx=0).eval()
    with torch.no_grad():  # per-head decays from fast to slow, and non-trivial D, dt bias, norm and biases
        mixer.A_log.copy_(torch.log(torch.linspace(0.3, 4.0, hf_config.num_heads)))
        mixer.D.copy_(torch.randn(hf_config.num_heads))
        mixer.dt_bias.copy_(torch.randn(hf_config.num_heads) * 0.5)
        mixer.norm.weight.add_(torch.randn_like(mixer.norm.weight) * 0.1)
        mixer.conv1d.bias.copy_(torch.randn_like(mixer.conv1d.bias) * 0.1)
        mixer.in_proj.bias.copy_(torch.randn_like(mixer.in_proj.bias) * 0.1)
        mixer.out_proj.bias.copy_(torch.randn_like(mixer.out_proj.bias) * 0.1)
    return mixer


def build_mixer(hf_config: Mamba2Config, hf_mixer: HFMamba2Mixer, **overrides) -> Mamba2Mixer:
    cfg = Mamba2MixerConfig.from_hf(hf_config.to_dict())
    if overrides:
        cfg = dataclasses.replace(cfg, **overrides)
    mixer = Mamba2Mixer(cfg)
    mixer.load_hf_weights((name, p.detach()) for name, p in hf_mixer.named_parameters())
    return mixer


@pytest.fixture(scope="module")
def mixer(hf_config: Mamba2Config, hf_mixer: HFMamba2Mixer) -> Mamba2Mixer:
    return build_mixer(hf_config, hf_mixer)


def hf_reference(hf_config: Mamba2Config, hf_mixer: HFMamba2Mixer, prompt: torch.Tensor,
                 decode_inputs: list[torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor], DynamicCache]:
    """transformers' outputs for a prefill of ``prompt [T, hidden]`` then one decode step per input."""
    cache = DynamicCache(config=hf_config)
    with torch.no_grad():
        prefill = hf_mixer(prompt[None], cache=cache)[0]
        steps = [hf_mixer(x[None, None], cache=cache)[0, 0] for x in decode_inputs]
    return prefill, steps, cache


def run(mixer: Mamba2Mixer, state: Mamba2StateCache, pieces: list[tuple[torch.Tensor, int, int]],
        **kwargs):
    """One engine step over ``(tokens [q, hidden], context_len, slot)`` per sequence; returns per-sequence outputs
    (and snapshots when asked)."""
    meta = Mamba2BatchMetadata(tuple(t.shape[0] for t, _, _ in pieces), tuple(c for _, c, _ in pieces),
                               tuple(s for _, _, s in pieces))
    with torch.no_grad():
        result = mixer(torch.cat([t for t, _, _ in pieces]), meta, state, **kwargs)
    out = result[0] if isinstance(result, tuple) else result
    split = list(out.split(list(meta.query_lens)))
    return (split, result[1]) if isinstance(result, tuple) else split


def test_batched_prefill_then_decode_matches_transformers(hf_config, hf_mixer, mixer):
    torch.manual_seed(1)
    prompts = [torch.randn(13, HIDDEN), torch.randn(6, HIDDEN)]
    steps = [[torch.randn(HIDDEN) for _ in range(4)] for _ in prompts]
    slots = [3, 0]
    state = Mamba2StateCache(mixer.cfg, num_slots=4)
    state.conv.normal_()  # stale contents of reused slots must not leak into a sequence that starts from zero
    state.ssm.normal_()

    prefill = run(mixer, state, [(p, 0, s) for p, s in zip(prompts, slots, strict=True)])
    decoded = [[] for _ in prompts]
    for k in range(4):
        outs = run(mixer, state, [(steps[i][k][None], prompts[i].shape[0] + k, slots[i]) for i in range(2)])
        for i, out in enumerate(outs):
            decoded[i].append(out[0])

    for i, prompt in enumerate(prompts):
        hf_prefill, hf_steps, hf_cache = hf_reference(hf_config, hf_mixer, prompt, steps[i])
        close(prefill[i], hf_prefill)
        for ours, theirs in zip(decoded[i], hf_steps, strict=True):
            close(ours, theirs)
        layer = hf_cache.layers[0]
        close(state.ssm[slots[i]], layer.recurrent_states[0][0])
        # transformers keeps conv_kernel columns; the oldest is never read again.
        close(state.conv[slots[i]], layer.conv_states[0][0, :, 1:])


@pytest.mark.parametrize("chunk_size", [8, 3])
@pytest.mark.parametrize("splits", [[23], [1, 22], [7, 1, 8, 7], [8, 8, 7], [5, 4, 11, 3], [1] * 5 + [18]])
def test_chunked_prefill_equals_one_shot(hf_config, hf_mixer, chunk_size, splits):
    mixer = build_mixer(hf_config, hf_mixer, chunk_size=chunk_size)
    torch.manual_seed(2)
    prompt, tail = torch.randn(23, HIDDEN), [torch.randn(HIDDEN) for _ in range(2)]
    hf_prefill, hf_steps, _ = hf_reference(hf_config, hf_mixer, prompt, tail)

    state = Mamba2StateCache(mixer.cfg, num_slots=2)
    # Another sequence shares every step: a one-token prefill first, then decodes beside ours.
    other = torch.randn(len(splits), HIDDEN)
    outputs, done = [], 0
    for k, n in enumerate(splits):
        out, _ = run(mixer, state, [(prompt[done:done + n], done, 1), (other[k:k + 1], k, 0)])
        outputs.append(out)
        done += n
    close(torch.cat(outputs), hf_prefill)
    for k, x in enumerate(tail):
        close(run(mixer, state, [(x[None], 23 + k, 1)])[0][0], hf_steps[k])


def test_snapshot_at_boundary_then_resume_equals_cold_run(hf_config, hf_mixer, mixer):
    torch.manual_seed(3)
    prompt, tail = torch.randn(21, HIDDEN), [torch.randn(HIDDEN) for _ in range(3)]
    state = Mamba2StateCache(mixer.cfg, num_slots=3)
    (cold,), snapshots = run(mixer, state, [(prompt, 0, 0)], boundary_snapshots=True)
    assert [s.position for s in snapshots] == [8, 16]
    cold_steps = [run(mixer, state, [(x[None], 21 + k, 0)])[0][0] for k, x in enumerate(tail)]

    # The same boundaries come out of a chunked prefill whose pieces do not line up with them.
    (_,), first = run(mixer, state, [(prompt[:5], 0, 1)], boundary_snapshots=True)
    (_,), second = run(mixer, state, [(prompt[5:18], 5, 1)], boundary_snapshots=True)
    assert first == [] and [s.position for s in second] == [8, 16]
    for a, b in zip(snapshots, second, strict=True):
        close(a.ssm, b.ssm)
        close(a.conv, b.conv)

    # Resume from the snapshot at 16 in a fresh slot: same outputs as the cold run from there on.
    snap = snapshots[1]
    state.conv[2], state.ssm[2] = snap.conv, snap.ssm
    (resumed,) = run(mixer, state, [(prompt[16:], 16, 2)])
    close(resumed, cold[16:])
    for k, x in enumerate(tail):
        close(run(mixer, state, [(x[None], 21 + k, 2)])[0][0], cold_steps[k])

    # A fork by copy_slot continues exactly like the original.
    state.copy_slot(2, 1)
    close(run(mixer, state, [(tail[0][None], 24, 1)])[0], run(mixer, state, [(tail[0][None], 24, 2)])[0])


def test_decode_step_reaching_a_boundary_yields_the_prefill_snapshot(mixer):
    torch.manual_seed(6)
    tokens = torch.randn(16, HIDDEN)
    state = Mamba2StateCache(mixer.cfg, num_slots=2)
    _, prefilled = run(mixer, state, [(tokens, 0, 0)], boundary_snapshots=True)
    _, none_yet = run(mixer, state, [(tokens[:14], 0, 1)], boundary_snapshots=True)
    _, at_15 = run(mixer, state, [(tokens[14:15], 14, 1)], boundary_snapshots=True)
    _, at_16 = run(mixer, state, [(tokens[15:16], 15, 1)], boundary_snapshots=True)
    assert [s.position for s in none_yet] == [8] and at_15 == []
    (snap,) = at_16
    assert (snap.sequence_index, snap.position) == (0, 16)
    close(snap.ssm, prefilled[1].ssm)
    close(snap.conv, prefilled[1].conv)
    close(snap.conv, state.conv[1])


def test_time_step_limit_clamps_prefill_and_decode_alike():
    # transformers clamps dt only in its chunked (prefill) path: compare the prefill with it, and decode with our
    # own prefill, which must agree token by token.
    hf_config = Mamba2Config(hidden_size=HIDDEN, expand=2, num_heads=8, head_dim=8, state_size=16, n_groups=2,
                             conv_kernel=4, chunk_size=8, num_hidden_layers=1, vocab_size=64,
                             time_step_limit=(0.2, 0.6))
    torch.manual_seed(7)
    hf_mixer = HFMamba2Mixer(hf_config, layer_idx=0).eval()
    with torch.no_grad():
        hf_mixer.dt_bias.copy_(torch.randn(8) * 2)  # softplus spreads well past both limits
    mixer = build_mixer(hf_config, hf_mixer)
    assert mixer.cfg.time_step_limit == (0.2, 0.6)
    prompt = torch.randn(12, HIDDEN)
    hf_prefill, _, _ = hf_reference(hf_config, hf_mixer, prompt, [])

    state = Mamba2StateCache(mixer.cfg, num_slots=2)
    (prefill,) = run(mixer, state, [(prompt, 0, 0)])
    close(prefill, hf_prefill)
    stepwise = [run(mixer, state, [(prompt[t:t + 1], t, 1)])[0][0] for t in range(12)]
    close(torch.stack(stepwise), prefill)
    unclamped = build_mixer(hf_config, hf_mixer, time_step_limit=(0.0, float("inf")))
    assert not torch.allclose(run(unclamped, Mamba2StateCache(mixer.cfg, 1), [(prompt, 0, 0)])[0], prefill)


def test_bfloat16_mixer_tracks_float32(hf_config, hf_mixer, mixer):
    low = build_mixer(hf_config, hf_mixer).to(torch.bfloat16)
    torch.manual_seed(8)
    prompt, step = torch.randn(10, HIDDEN), torch.randn(1, HIDDEN)
    ref_state, low_state = Mamba2StateCache(mixer.cfg, 1), Mamba2StateCache(mixer.cfg, 1, dtype=torch.bfloat16)
    expected = torch.cat([run(mixer, ref_state, [(prompt, 0, 0)])[0], run(mixer, ref_state, [(step, 10, 0)])[0]])
    got = torch.cat([run(low, low_state, [(prompt.bfloat16(), 0, 0)])[0],
                     run(low, low_state, [(step.bfloat16(), 10, 0)])[0]])
    assert got.dtype == torch.bfloat16 and low_state.ssm.dtype == torch.float32
    # bf16 weights and activations: a few bf16 ulps of the outputs' scale.
    torch.testing.assert_close(got.float(), expected, atol=3e-2, rtol=3e-2)


def test_chunk_scan_equals_token_by_token_recurrence():
    torch.manual_seed(4)
    T, H, P, G, N = 29, 6, 4, 3, 5
    x, B, C = torch.randn(T, H, P), torch.randn(T, G, N), torch.randn(T, G, N)
    dt, A, D = torch.rand(T, H) * 0.5, -torch.rand(H) * 2, torch.randn(H)
    initial = torch.randn(H, P, N)
    result = ssd_chunk_scan(x, dt, A, B, C, chunk_size=4, D=D, initial_state=initial, start_position=6)

    state, ys, boundary = initial[None], [], {}
    for t in range(T):
        y, state = ssd_decode_step(state, x[t:t + 1], dt[t:t + 1], A, B[t:t + 1], C[t:t + 1], D)
        ys.append(y[0])
        if (6 + t + 1) % 4 == 0:
            boundary[6 + t + 1] = state[0]
    close(result.output, torch.stack(ys))
    close(result.final_state, state[0])
    assert result.boundary_positions == tuple(boundary)
    close(result.boundary_states, torch.stack(list(boundary.values())))


def test_conv_prefill_equals_decode_steps():
    torch.manual_seed(5)
    x, weight, bias = torch.randn(9, 6), torch.randn(6, 4), torch.randn(6)
    state = torch.randn(6, 3)
    out, new_state = causal_conv1d_prefill(x, weight, bias, state)
    step_state, outs = state[None], []
    for t in range(9):
        y, step_state = causal_conv1d_decode(x[t:t + 1], weight, bias, step_state)
        outs.append(y[0])
    close(out, torch.stack(outs))
    close(new_state, step_state[0])
    close(new_state, x[-3:].t())


def test_bad_metadata_and_weights_are_rejected(hf_config, hf_mixer, mixer):
    with pytest.raises(ValueError, match="share a state slot"):
        Mamba2BatchMetadata((2, 3), (0, 0), (1, 1))
    with pytest.raises(ValueError, match="at least one token"):
        Mamba2BatchMetadata((0,), (0,), (0,))
    with pytest.raises(ValueError, match="one entry per sequence"):
        Mamba2BatchMetadata((1, 2), (0,), (0, 1))
    state = Mamba2StateCache(mixer.cfg, num_slots=1)
    with pytest.raises(ValueError, match="token count"):
        mixer(torch.randn(3, HIDDEN), Mamba2BatchMetadata((2,), (0,), (0,)), state)
    with pytest.raises(ValueError, match="outside the cache"):
        mixer(torch.randn(2, HIDDEN), Mamba2BatchMetadata((2,), (0,), (1,)), state)

    fresh = Mamba2Mixer(mixer.cfg)
    named = {name: p.detach() for name, p in hf_mixer.named_parameters()}
    with pytest.raises(ValueError, match="missing"):
        fresh.load_hf_weights((n, t) for n, t in named.items() if n != "A_log")
    with pytest.raises(ValueError, match="shape"):
        fresh.load_hf_weights([("D", torch.zeros(3))])
    with pytest.raises(ValueError, match="unexpected"):
        fresh.load_hf_weights([("mixer.D", named["D"])])
    with pytest.raises(ValueError, match="multiple of n_groups"):
        Mamba2MixerConfig(hidden_size=8, num_heads=3, head_dim=4, state_size=4, n_groups=2, conv_kernel=4,
                          chunk_size=8, norm_eps=1e-5)


def test_nemotron_h_mixer_matches_transformers():
    """Nemotron-H's hybrid layers use the same mixer under ``mamba_*`` config names (and a dt floor)."""
    config = NemotronHConfig(hidden_size=HIDDEN, mamba_num_heads=8, mamba_head_dim=6, ssm_state_size=8, n_groups=4,
                             conv_kernel=3, chunk_size=4, num_hidden_layers=2, vocab_size=64,
                             hybrid_override_pattern="M*", num_attention_heads=4, num_key_value_heads=2,
                             use_bias=True)
    torch.manual_seed(9)
    hf_mixer = NemotronHMamba2Mixer(config, layer_idx=0).eval()
    with torch.no_grad():
        hf_mixer.D.copy_(torch.randn(8))
        hf_mixer.norm.weight.add_(torch.randn(48) * 0.1)
        hf_mixer.in_proj.bias.copy_(torch.randn_like(hf_mixer.in_proj.bias) * 0.1)
    cfg = Mamba2MixerConfig.from_nemotron_h(config.to_dict())
    assert (cfg.num_heads, cfg.head_dim, cfg.state_size, cfg.n_groups, cfg.conv_kernel) == (8, 6, 8, 4, 3)
    assert cfg.time_step_limit == (config.time_step_min, float("inf"))
    mixer = Mamba2Mixer(cfg)
    mixer.load_hf_weights((name, p.detach()) for name, p in hf_mixer.named_parameters())

    prompt, tail = torch.randn(10, HIDDEN), [torch.randn(HIDDEN) for _ in range(3)]
    hf_prefill, hf_steps, _ = hf_reference(config, hf_mixer, prompt, tail)
    state = Mamba2StateCache(cfg, num_slots=1)
    pieces = [run(mixer, state, [(prompt[:3], 0, 0)])[0], run(mixer, state, [(prompt[3:], 3, 0)])[0]]
    close(torch.cat(pieces), hf_prefill)
    for k, x in enumerate(tail):
        close(run(mixer, state, [(x[None], 10 + k, 0)])[0][0], hf_steps[k])


def test_unsupported_activation_is_rejected(hf_config):
    with pytest.raises(ValueError, match="activation"):
        Mamba2MixerConfig.from_hf({**hf_config.to_dict(), "hidden_act": "gelu"})
