"""Mamba2's selective state-space model (SSD) for one sequence's prefill and for a batch of decode steps.

Shapes (one layer, this rank's heads): ``H`` heads of ``P`` channels each, ``G`` groups of B/C of state size ``N``
(each group serves ``H // G`` consecutive heads), ``T`` tokens. The recurrence per head ``h`` is

    state_t = exp(dt_t[h] * A[h]) * state_{t-1} + dt_t[h] * x_t[h] (outer) B_t[g(h)]
    y_t[h]  = state_t @ C_t[g(h)] + D[h] * x_t[h]

with ``dt`` already discretized by the caller (``softplus(dt_raw + dt_bias)`` clamped to the model's limits).

Prefill uses the chunked SSD form: within a chunk, outputs are a masked "attention" of C against B weighted by
the cumulative decay; between chunks only the ``[H, P, N]`` state is carried, so a prefill split into pieces (the
scheduler's chunked prefill, or a prefix-cache resume) is the same computation as one call given the state at
the split. Chunks are aligned to absolute positions (``start_position``): leading positions of the first chunk
are padded with ``dt = 0``, which leaves the state unchanged (decay ``exp(0) = 1``, input ``0``), so the states at
multiples of ``chunk_size`` fall out of the scan as ``boundary_states`` whatever the split. With ``chunk_size``
equal to (or dividing) the KV block size those are the snapshots a prefix cache keys by block.

Everything is computed in float32 whatever the input dtype; states are returned in float32 and the caller casts
on store.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class ScanResult:
    """``output [T, H, P]`` float32; ``final_state [H, P, N]`` float32 after the last token;
    ``boundary_states [K, H, P, N]`` after each absolute position in ``boundary_positions`` (the multiples of
    ``chunk_size`` in ``(start_position, start_position + T]``, ascending)."""

    output: torch.Tensor
    final_state: torch.Tensor
    boundary_states: torch.Tensor
    boundary_positions: tuple[int, ...]


def _heads_from_groups(t: torch.Tensor, num_heads: int) -> torch.Tensor:
    """``[..., G, N] -> [..., H, N]``: each group's B or C repeated for its ``H // G`` consecutive heads."""
    return t.repeat_interleave(num_heads // t.shape[-2], dim=-2)


def _segment_sum(a: torch.Tensor) -> torch.Tensor:
    """``[..., L] -> [..., L, L]`` with ``out[..., l, s] = sum(a[..., s+1 : l+1])`` for ``s <= l``, ``-inf`` above the
    diagonal: ``exp`` of it is the decay from position ``s`` to ``l``. Masked cumulative sums rather than
    differences of one cumulative sum keep it exact for long chunks."""
    length = a.shape[-1]
    expanded = a[..., None].expand(*a.shape, length)  # [..., l, s] = a[l]
    strictly_lower = torch.tril(torch.ones(length, length, dtype=torch.bool, device=a.device), diagonal=-1)
    sums = torch.cumsum(expanded.masked_fill(~strictly_lower, 0.0), dim=-2)
    lower = torch.tril(torch.ones(length, length, dtype=torch.bool, device=a.device), diagonal=0)
    return sums.masked_fill(~lower, -torch.inf)


def ssd_chunk_scan(
    x: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    *,
    chunk_size: int,
    D: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
    start_position: int = 0,
) -> ScanResult:
    """One sequence's prefill: ``x [T, H, P]``, ``dt [T, H]`` (discretized), ``A [H]`` (negative), ``B``/``C``
    ``[T, G, N]``, ``D [H]``; ``initial_state [H, P, N]`` is the state after ``start_position`` tokens (None: zeros,
    only valid with ``start_position == 0`` or a caller that knows the state is empty)."""
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    if start_position < 0:
        raise ValueError("start_position must be non-negative")
    num_tokens, num_heads, head_dim = x.shape
    state_size = B.shape[-1]
    x, dt = x.float(), dt.float()
    Bh, Ch = _heads_from_groups(B.float(), num_heads), _heads_from_groups(C.float(), num_heads)
    A = A.float()

    lead = start_position % chunk_size
    padded = lead + num_tokens
    tail = (-padded) % chunk_size
    num_chunks = (padded + tail) // chunk_size

    def chunks(t: torch.Tensor) -> torch.Tensor:
        # Pad the token dimension (dim 0) at both ends with zeros, then split it into [chunks, chunk_size].
        pad = [0, 0] * (t.dim() - 1) + [lead, tail]
        return F.pad(t, pad).reshape(num_chunks, chunk_size, *t.shape[1:])

    x_dt = chunks(x * dt[..., None])  # [c, l, h, p]
    a = chunks(dt * A)  # [c, l, h]; zero on padding: no decay there
    Bc, Cc = chunks(Bh), chunks(Ch)  # [c, l, h, n]

    a = a.permute(2, 0, 1)  # [h, c, l]
    a_cumsum = torch.cumsum(a, dim=-1)

    # Within a chunk: y_l = sum_{s <= l} (C_l . B_s) * decay(s -> l) * x_s dt_s.
    decay = torch.exp(_segment_sum(a))  # [h, c, l, s]
    scores = torch.einsum("clhn,cshn->hcls", Cc, Bc) * decay
    y = torch.einsum("hcls,cshp->clhp", scores, x_dt)

    # Each chunk's own contribution to the state at its end, then the chunk-to-chunk recurrence.
    decay_to_end = torch.exp(a_cumsum[..., -1:] - a_cumsum)  # [h, c, l]
    chunk_states = torch.einsum("clhn,hcl,clhp->chpn", Bc, decay_to_end, x_dt)
    chunk_decay = torch.exp(a_cumsum[..., -1])  # [h, c]
    state = (initial_state.float() if initial_state is not None
             else x.new_zeros(num_heads, head_dim, state_size))
    start_states, end_states = [], []
    for c in range(num_chunks):
        start_states.append(state)
        state = chunk_decay[:, c, None, None] * state + chunk_states[c]
        end_states.append(state)

    # Carried-in state read out by each position of the chunk, decayed up to it.
    y = y + torch.einsum("clhn,chpn,hcl->clhp", Cc, torch.stack(start_states), torch.exp(a_cumsum))
    y = y.reshape(num_chunks * chunk_size, num_heads, head_dim)[lead:lead + num_tokens]
    if D is not None:
        y = y + D.float()[:, None] * x

    first_chunk_start = start_position - lead
    end = start_position + num_tokens
    boundaries = [(first_chunk_start + (c + 1) * chunk_size, c) for c in range(num_chunks)]
    kept = [(pos, c) for pos, c in boundaries if start_position < pos <= end]
    boundary_states = (torch.stack([end_states[c] for _, c in kept]) if kept
                       else x.new_zeros(0, num_heads, head_dim, state_size))
    return ScanResult(output=y, final_state=state, boundary_states=boundary_states,
                      boundary_positions=tuple(pos for pos, _ in kept))


def ssd_decode_step(
    state: torch.Tensor,
    x: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    D: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token for each of a batch of sequences: ``state [S, H, P, N]``, ``x [S, H, P]``, ``dt [S, H]``
    (discretized), ``B``/``C`` ``[S, G, N]``. Returns ``(y [S, H, P], new_state [S, H, P, N])``, both float32;
    ``state`` is not modified (the caller scatters the new state to its slots)."""
    num_heads = x.shape[1]
    x, dt = x.float(), dt.float()
    Bh, Ch = _heads_from_groups(B.float(), num_heads), _heads_from_groups(C.float(), num_heads)
    decay = torch.exp(dt * A.float())  # [s, h]
    new_state = state.float() * decay[..., None, None] + (x * dt[..., None])[..., None] * Bh[:, :, None, :]
    y = torch.einsum("shpn,shn->shp", new_state, Ch)
    if D is not None:
        y = y + D.float()[:, None] * x
    return y, new_state
