"""The Mamba2 mixer over the engine's flattened batch, with each sequence's recurrent state in a slot of a
per-layer state cache.

Per token: ``in_proj`` gives ``z`` (gate), ``xBC`` and ``dt``; ``xBC`` goes through a causal depthwise convolution
and SiLU and splits into ``x`` (heads), ``B`` and ``C`` (``n_groups`` groups); the selective scan
(``kernels.reference.ssm``) runs with per-head ``A = -exp(A_log)``, ``D`` and ``dt = softplus(dt + dt_bias)``
clamped to ``time_step_limit``; a gated RMSNorm (``norm(y * silu(z))``, per group) and ``out_proj`` finish.
Parameter names and shapes follow transformers' ``Mamba2Mixer`` (``load_hf_weights``).

What a sequence carries between steps is two tensors per layer, independent of its length:

* ``conv``: ``[conv_dim, conv_kernel - 1]``, its last ``conv_kernel - 1`` pre-convolution ``xBC`` rows
  (transformers keeps ``conv_kernel`` columns; its oldest one is never read);
* ``ssm``: ``[num_heads, head_dim, state_size]``.

``Mamba2StateCache`` holds them for ``num_slots`` sequences; ``Mamba2BatchMetadata`` tells the mixer, per sequence
of the flattened batch, its token count, how many tokens its state already holds (``context_len``) and its slot.
A sequence with ``context_len == 0`` starts from zeros whatever its slot holds, so slots are reused without
clearing. A decode (one token, ``context_len > 0``) updates its slot in one batched step; anything else (a prefill,
a chunk of one, a resume) runs the chunked scan from the slot's state. ``context_len`` must be exactly the number
of tokens absorbed into that slot: unlike the paged KV cache, the state cannot be rolled back, so a sequence whose
tokens are rejected (speculative decoding) or preempted must restore a snapshot or recompute from zero.

Serving (``engine.scheduling.mamba_state``): each running sequence holds one live slot; the states at block ends are
kept as prefix-cache snapshots keyed like the KV blocks (``boundary_snapshots=True`` yields them wherever the scan
crosses a multiple of ``chunk_size``, which must divide the KV block size; the conv part is the last ``conv_kernel - 1``
``xBC`` rows before the boundary); a prefix hit copies one into the sequence's slot (``copy_slot``) and resumes with
``context_len`` = the cached length. ``MambaStep`` carries one forward's metadata, caches and snapshot lists.

Tensor parallelism is not supported yet (``in_proj`` packs z/x/B/C/dt, each of which shards differently).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from engine.layers.linear import Linear
from kernels.reference.causal_conv1d import causal_conv1d_decode, causal_conv1d_prefill
from kernels.reference.ssm import ssd_chunk_scan, ssd_decode_step


@dataclass(frozen=True)
class Mamba2MixerConfig:
    hidden_size: int
    num_heads: int
    head_dim: int
    state_size: int
    n_groups: int
    conv_kernel: int
    chunk_size: int
    norm_eps: float
    use_bias: bool = False
    use_conv_bias: bool = True
    time_step_limit: tuple[float, float] = (0.0, float("inf"))

    def __post_init__(self) -> None:
        if self.num_heads % self.n_groups:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of n_groups ({self.n_groups})")
        if self.conv_kernel < 1 or self.chunk_size < 1:
            raise ValueError("conv_kernel and chunk_size must be positive")

    @property
    def intermediate_size(self) -> int:
        return self.num_heads * self.head_dim

    @property
    def conv_dim(self) -> int:
        return self.intermediate_size + 2 * self.n_groups * self.state_size

    @classmethod
    def from_hf(cls, config: Mapping[str, Any]) -> Mamba2MixerConfig:
        """From a transformers ``Mamba2Config`` (its ``to_dict()``) or a checkpoint's ``config.json``."""
        hidden = int(config["hidden_size"])
        intermediate = int(config.get("expand", 2) * hidden)
        num_heads = int(config["num_heads"])
        head_dim = int(config.get("head_dim", intermediate // num_heads))
        if num_heads * head_dim != intermediate:
            raise ValueError(f"num_heads * head_dim ({num_heads * head_dim}) must equal expand * hidden_size "
                             f"({intermediate})")
        _require_silu(config.get("hidden_act", "silu"))
        limit = config.get("time_step_limit") or (0.0, float("inf"))
        return cls(hidden_size=hidden, num_heads=num_heads, head_dim=head_dim, state_size=int(config["state_size"]),
                   n_groups=int(config.get("n_groups", 1)), conv_kernel=int(config.get("conv_kernel", 4)),
                   chunk_size=int(config.get("chunk_size", 256)),
                   norm_eps=float(config.get("layer_norm_epsilon", 1e-5)), use_bias=bool(config.get("use_bias")),
                   use_conv_bias=bool(config.get("use_conv_bias", True)),
                   time_step_limit=(_config_float(limit[0]), _config_float(limit[1])))

    @classmethod
    def from_nemotron_h(cls, config: Mapping[str, Any]) -> Mamba2MixerConfig:
        """From a transformers ``NemotronHConfig`` (``to_dict()``) or a Nemotron-H ``config.json``: the same mixer
        under ``mamba_*`` names, with dt clamped below at ``time_step_min`` as transformers' Nemotron-H mixer
        does (its ``time_step_limit`` key is not what that mixer reads)."""
        _require_silu(config.get("mamba_hidden_act", "silu"))
        return cls(hidden_size=int(config["hidden_size"]), num_heads=int(config["mamba_num_heads"]),
                   head_dim=int(config["mamba_head_dim"]), state_size=int(config["ssm_state_size"]),
                   n_groups=int(config.get("n_groups", 1)), conv_kernel=int(config.get("conv_kernel", 4)),
                   chunk_size=int(config.get("chunk_size", 128)),
                   norm_eps=float(config.get("layer_norm_epsilon", 1e-5)), use_bias=bool(config.get("use_bias")),
                   use_conv_bias=bool(config.get("use_conv_bias", True)),
                   time_step_limit=(_config_float(config.get("time_step_min", 0.001)), float("inf")))


def _config_float(value: Any) -> float:
    """A float from a ``config.json``: transformers writes infinities as ``{"__float__": "Infinity"}``."""
    if isinstance(value, Mapping):
        value = value["__float__"]
    return float(value)


def _require_silu(activation: str) -> None:
    if activation != "silu":
        raise ValueError(f"Mamba2 mixer activation {activation!r} is not supported (only silu)")


class Mamba2StateCache:
    """One layer's recurrent state for ``num_slots`` sequences: ``conv [slots, conv_dim, conv_kernel - 1]`` and
    ``ssm [slots, num_heads, head_dim, state_size]``."""

    def __init__(self, cfg: Mamba2MixerConfig, num_slots: int, *, dtype: torch.dtype = torch.float32,
                 ssm_dtype: torch.dtype = torch.float32, device: torch.device | str = "cpu") -> None:
        # The SSM state accumulates over the whole sequence: float32 by default even for a bf16 model.
        self.conv = torch.zeros(num_slots, cfg.conv_dim, cfg.conv_kernel - 1, dtype=dtype, device=device)
        self.ssm = torch.zeros(num_slots, cfg.num_heads, cfg.head_dim, cfg.state_size, dtype=ssm_dtype,
                               device=device)

    @property
    def num_slots(self) -> int:
        return self.conv.shape[0]

    def copy_slot(self, src: int, dst: int) -> None:
        """Make ``dst`` hold ``src``'s state (a snapshot taken, or restored for a resume)."""
        self.conv[dst].copy_(self.conv[src])
        self.ssm[dst].copy_(self.ssm[src])


@dataclass(frozen=True)
class Mamba2BatchMetadata:
    """Per sequence of the flattened batch, in order: tokens in this step, tokens already in its state, slot."""

    query_lens: tuple[int, ...]
    context_lens: tuple[int, ...]
    state_slots: tuple[int, ...]

    def __post_init__(self) -> None:
        if not len(self.query_lens) == len(self.context_lens) == len(self.state_slots):
            raise ValueError("query_lens, context_lens and state_slots must have one entry per sequence")
        if min(self.query_lens, default=1) < 1 or min(self.context_lens, default=0) < 0:
            raise ValueError("each sequence needs at least one token and a non-negative context length")
        if len(set(self.state_slots)) != len(self.state_slots):
            raise ValueError("two sequences of one batch share a state slot")


@dataclass(frozen=True)
class BoundarySnapshot:
    """A sequence's state after ``position`` tokens (a multiple of ``chunk_size``), for the prefix cache."""

    sequence_index: int
    position: int
    conv: torch.Tensor  # [conv_dim, conv_kernel - 1]
    ssm: torch.Tensor  # [num_heads, head_dim, state_size]


@dataclass(frozen=True)
class MambaStep:
    """One forward's state inputs: the batch's metadata, every Mamba2 layer's cache (in layer order), and one list
    per layer to append its boundary snapshots to (None: take none)."""

    meta: Mamba2BatchMetadata
    caches: list[Mamba2StateCache]
    snapshots: list[list[BoundarySnapshot]] | None = None


def gated_rms_norm(y: torch.Tensor, gate: torch.Tensor, weight: torch.Tensor, group_size: int, eps: float,
                   out_dtype: torch.dtype) -> torch.Tensor:
    """``weight * rmsnorm(y * silu(gate))`` with the RMS taken over each group of ``group_size`` channels (one per
    B/C group), in float32 and cast to ``out_dtype`` before the weight multiply like transformers."""
    h = y.float() * F.silu(gate.float())
    grouped = h.view(*h.shape[:-1], -1, group_size)
    grouped = grouped * torch.rsqrt(grouped.pow(2).mean(-1, keepdim=True) + eps)
    return weight * grouped.view_as(h).to(out_dtype)


class Mamba2Mixer(nn.Module):
    def __init__(self, cfg: Mamba2MixerConfig) -> None:
        super().__init__()
        self.cfg = cfg
        inter, heads = cfg.intermediate_size, cfg.num_heads
        self.in_proj = Linear(cfg.hidden_size, inter + cfg.conv_dim + heads, bias=cfg.use_bias)
        self.conv_weight = nn.Parameter(torch.empty(cfg.conv_dim, cfg.conv_kernel), requires_grad=False)
        self.conv_bias = (nn.Parameter(torch.zeros(cfg.conv_dim), requires_grad=False) if cfg.use_conv_bias
                          else None)
        self.dt_bias = nn.Parameter(torch.zeros(heads), requires_grad=False)
        self.A_log = nn.Parameter(torch.zeros(heads), requires_grad=False)
        self.D = nn.Parameter(torch.ones(heads), requires_grad=False)
        self.norm_weight = nn.Parameter(torch.ones(inter), requires_grad=False)
        self.out_proj = Linear(inter, cfg.hidden_size, bias=cfg.use_bias)

    def load_hf_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        """Tensors named as in transformers' ``Mamba2Mixer`` (``in_proj.weight``, ``conv1d.weight``, ``A_log``, ...),
        relative to the mixer. Every parameter must be given exactly once."""
        targets: dict[str, nn.Parameter | None] = {
            "in_proj.weight": self.in_proj.weight, "in_proj.bias": self.in_proj.bias,
            "conv1d.weight": self.conv_weight, "conv1d.bias": self.conv_bias, "dt_bias": self.dt_bias,
            "A_log": self.A_log, "D": self.D, "norm.weight": self.norm_weight,
            "out_proj.weight": self.out_proj.weight, "out_proj.bias": self.out_proj.bias,
        }
        expected = {name for name, p in targets.items() if p is not None}
        seen: set[str] = set()
        for name, tensor in weights:
            target = targets.get(name)
            if target is None or name in seen:
                raise ValueError(f"unexpected or repeated Mamba2 mixer weight {name!r}")
            if name == "conv1d.weight":
                tensor = tensor.reshape(self.cfg.conv_dim, self.cfg.conv_kernel)  # HF: [conv_dim, 1, kernel]
            if tensor.shape != target.shape:
                raise ValueError(f"{name}: shape {tuple(tensor.shape)}, expected {tuple(target.shape)}")
            target.data.copy_(tensor)
            seen.add(name)
        if missing := expected - seen:
            raise ValueError(f"missing Mamba2 mixer weights: {sorted(missing)}")

    def _discretize(self, dt: torch.Tensor) -> torch.Tensor:
        low, high = self.cfg.time_step_limit
        return F.softplus(dt.float() + self.dt_bias.float()).clamp(min=low, max=high)

    def forward(self, hidden_states: torch.Tensor, meta: Mamba2BatchMetadata, state: Mamba2StateCache,
                boundary_snapshots: bool = False) -> torch.Tensor | tuple[torch.Tensor, list[BoundarySnapshot]]:
        """``hidden_states [num_tokens, hidden]`` (the sequences of ``meta`` back to back) -> same shape. Updates
        each sequence's slot in ``state``. With ``boundary_snapshots``, also returns the state at every multiple of
        ``chunk_size`` that a sequence reached in this step (prefill or decode), in no particular order."""
        cfg = self.cfg
        if hidden_states.shape[0] != sum(meta.query_lens):
            raise ValueError("hidden_states has a different token count than the metadata")
        if not all(0 <= slot < state.num_slots for slot in meta.state_slots):
            raise ValueError(f"a state slot is outside the cache's {state.num_slots} slots")
        inter, heads, head_dim, groups, n = (cfg.intermediate_size, cfg.num_heads, cfg.head_dim, cfg.n_groups,
                                             cfg.state_size)
        z, xbc, dt = self.in_proj(hidden_states).split([inter, cfg.conv_dim, heads], dim=-1)
        A = -torch.exp(self.A_log.float())
        y = hidden_states.new_empty(hidden_states.shape[0], heads, head_dim, dtype=torch.float32)
        snapshots: list[BoundarySnapshot] = []

        starts = [0]
        for q in meta.query_lens:
            starts.append(starts[-1] + q)
        decodes = [i for i, (q, ctx) in enumerate(zip(meta.query_lens, meta.context_lens, strict=True))
                   if q == 1 and ctx > 0]
        decode_set = set(decodes)

        for i, (q, ctx, slot) in enumerate(zip(meta.query_lens, meta.context_lens, meta.state_slots, strict=True)):
            if i in decode_set:
                continue
            tokens = slice(starts[i], starts[i] + q)
            conv_in = state.conv[slot] if ctx > 0 else None
            conv_out, conv_new = causal_conv1d_prefill(xbc[tokens], self.conv_weight, self.conv_bias, conv_in)
            x, B, C = F.silu(conv_out).split([inter, groups * n, groups * n], dim=-1)
            result = ssd_chunk_scan(
                x.view(q, heads, head_dim), self._discretize(dt[tokens]), A, B.view(q, groups, n),
                C.view(q, groups, n), chunk_size=cfg.chunk_size, D=self.D,
                initial_state=state.ssm[slot] if ctx > 0 else None, start_position=ctx)
            y[tokens] = result.output
            if boundary_snapshots and result.boundary_positions:
                history = torch.cat([conv_in.float() if conv_in is not None
                                     else xbc.new_zeros(cfg.conv_dim, cfg.conv_kernel - 1, dtype=torch.float32),
                                     xbc[tokens].float().t()], dim=1)
                for position, ssm in zip(result.boundary_positions, result.boundary_states, strict=True):
                    end = cfg.conv_kernel - 1 + position - ctx  # column just past the boundary in `history`
                    conv = history[:, end - (cfg.conv_kernel - 1):end].to(state.conv.dtype)
                    snapshots.append(BoundarySnapshot(i, position, conv, ssm.to(state.ssm.dtype)))
            state.conv[slot] = conv_new.to(state.conv.dtype)
            state.ssm[slot] = result.final_state.to(state.ssm.dtype)

        if decodes:
            rows = torch.tensor([starts[i] for i in decodes], device=hidden_states.device)
            slots = torch.tensor([meta.state_slots[i] for i in decodes], device=hidden_states.device)
            conv_out, conv_new = causal_conv1d_decode(xbc[rows], self.conv_weight, self.conv_bias, state.conv[slots])
            x, B, C = F.silu(conv_out).split([inter, groups * n, groups * n], dim=-1)
            out, ssm_new = ssd_decode_step(
                state.ssm[slots], x.view(-1, heads, head_dim), self._discretize(dt[rows]), A,
                B.view(-1, groups, n), C.view(-1, groups, n), self.D)
            y[rows] = out
            state.conv[slots] = conv_new.to(state.conv.dtype)
            state.ssm[slots] = ssm_new.to(state.ssm.dtype)
            if boundary_snapshots:  # a decode step that completes a chunk is a boundary too
                for row, i in enumerate(decodes):
                    position = meta.context_lens[i] + 1
                    if position % cfg.chunk_size == 0:
                        snapshots.append(BoundarySnapshot(i, position, conv_new[row].to(state.conv.dtype),
                                                          ssm_new[row].to(state.ssm.dtype)))

        normed = gated_rms_norm(y.view(-1, inter), z, self.norm_weight, inter // groups, cfg.norm_eps,
                                hidden_states.dtype)
        out = self.out_proj(normed)
        return (out, snapshots) if boundary_snapshots else out
