"""Apply a packed token bitmask to logits in place: disallowed tokens get -inf before sampling.

The mask is int32 ``[batch, ceil(V / 32)]``; bit ``i`` of word ``w`` allows token ``32 * w + i`` (the layout
llguidance and XGrammar fill). Logit columns beyond the mask's ``32 * words`` are disallowed. A row of all ones
(-1 words) leaves its logits untouched, which is how an unconstrained sequence shares a batch with constrained ones.

``apply_token_bitmask_`` is the dispatch point: the Triton kernel on CUDA, the torch reference elsewhere; both
have the same signature and results.
"""

from __future__ import annotations

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # CPU-only installs may lack triton; the reference covers them
    triton = None

TRITON_BLOCK = 1024


def _check(logits: torch.Tensor, bitmask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if logits.dim() == 1:
        logits = logits.unsqueeze(0)
    if bitmask.dim() == 1:
        bitmask = bitmask.unsqueeze(0)
    assert logits.dim() == 2 and bitmask.dim() == 2, "logits [B, V] and bitmask [B, words]"
    assert bitmask.dtype == torch.int32, "bitmask must be int32"
    assert logits.shape[0] == bitmask.shape[0], "one bitmask row per logits row"
    assert logits.stride(-1) == 1, "logits rows must be contiguous"
    return logits, bitmask


def apply_token_bitmask_reference_(logits: torch.Tensor, bitmask: torch.Tensor) -> torch.Tensor:
    """Torch reference: unpack the bits and ``masked_fill_``. Returns ``logits``."""
    rows, mask = _check(logits, bitmask)
    mask = mask.to(rows.device, non_blocking=True)
    vocab, words = rows.shape[1], mask.shape[1]
    shifts = torch.arange(32, device=rows.device, dtype=torch.int32)
    allowed = ((mask.unsqueeze(-1) >> shifts) & 1).bool().flatten(1)  # [B, words * 32]
    if words * 32 >= vocab:
        allowed = allowed[:, :vocab]
    else:
        allowed = torch.nn.functional.pad(allowed, (0, vocab - words * 32), value=False)
    rows.masked_fill_(~allowed, float("-inf"))
    return logits


if triton is not None:

    @triton.jit
    def _token_bitmask_kernel(
        logits_ptr,
        bitmask_ptr,
        vocab_size,
        num_words,
        logits_row_stride,
        bitmask_row_stride,
        BLOCK: tl.constexpr,
    ):
        # One program per (row, block of BLOCK tokens); only disallowed positions are written, so the logits are
        # never read.
        row = tl.program_id(0)
        offsets = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        in_vocab = offsets < vocab_size
        word_index = offsets // 32
        words = tl.load(
            bitmask_ptr + row * bitmask_row_stride + word_index,
            mask=in_vocab & (word_index < num_words),
            other=0,
        )
        allowed = ((words >> (offsets % 32)) & 1) != 0
        tl.store(logits_ptr + row * logits_row_stride + offsets, float("-inf"), mask=in_vocab & ~allowed)


def apply_token_bitmask_triton_(logits: torch.Tensor, bitmask: torch.Tensor) -> torch.Tensor:
    """Triton kernel, same contract as the reference. Runs on CUDA, or on CPU tensors under TRITON_INTERPRET=1."""
    if triton is None:
        raise RuntimeError("triton is not installed")
    rows, mask = _check(logits, bitmask)
    mask = mask.to(rows.device, non_blocking=True)
    if not mask.is_contiguous():
        mask = mask.contiguous()
    batch, vocab = rows.shape
    grid = (batch, triton.cdiv(vocab, TRITON_BLOCK))
    _token_bitmask_kernel[grid](
        rows, mask, vocab, mask.shape[1], rows.stride(0), mask.stride(0), BLOCK=TRITON_BLOCK
    )
    return logits


def apply_token_bitmask_(logits: torch.Tensor, bitmask: torch.Tensor) -> torch.Tensor:
    """Dispatch: Triton on CUDA, the torch reference elsewhere. ``bitmask`` may live on the CPU (pinned)."""
    if logits.is_cuda and triton is not None:
        return apply_token_bitmask_triton_(logits, bitmask)
    return apply_token_bitmask_reference_(logits, bitmask)
