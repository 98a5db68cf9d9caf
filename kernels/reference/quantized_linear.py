"""Weight-only int4 and int8 linears with int8-quantized input rows: the math of ``kernels.cpu.int4_linear`` (and
``int4_linear_two_level``) and ``kernels.cpu.int8_linear`` in plain torch.

Each input row is quantized per group to int8 (scale ``amax / 127``, codes rounded half to even; for the int8
kernel and the two-level int4 one also each rounding error again in 254 steps of that scale:
``kernels/cpu/quantize_input.h``); then
``y = x_dequantized @ W.T``.

int4 weights are ``torch._convert_weight_to_int4pack_for_cpu``'s packing (N a multiple of 64): ``[N / 64, K, 32]``
bytes, byte ``j`` of (block, k) holding output row ``block * 64 + j`` in its low nibble and ``block * 64 + 32 + j``
in its high nibble (torch on AVX-512; elsewhere the same with 32-row blocks: ``int4_block_rows``);
``scales_zeros`` is ``[K / group, N, 2]`` (scale, zero), a weight being ``(code - 8) * scale + zero``; the input
groups are the weight's groups. int8 weights are ``torch._weight_int8pack_mm``'s: ``[N, K]`` int8 with a scale per
output row; the input groups are 32 inputs (``int8_linear``), or the whole row (``int8_head_linear``: the math of
``kernels.cpu.lm_head_linear``).
"""

from __future__ import annotations

from functools import cache

import torch

INT8_INPUT_GROUP = 32
RESIDUAL_STEPS = 254  # kernels/cpu/quantize_input.h: x ~= scale * (code + residual / 254)


@cache
def int4_block_rows() -> int:
    """Output rows per block of torch's CPU int4 packing on this machine: torch packs by its CPU capability, 64 on
    AVX-512 builds and 32 elsewhere. Row 16's code lands in byte 0's high nibble only with 32-row blocks."""
    codes = torch.zeros(64, 64, dtype=torch.int32)
    codes[16, 0] = 1
    packed = torch._convert_weight_to_int4pack_for_cpu(codes, 1)
    return 32 if int(packed.view(-1)[0]) >> 4 == 1 else 64


def unpack_int4_codes(packed: torch.Tensor, out_features: int, in_features: int) -> torch.Tensor:
    """The codes 0..15 as int32 ``[N, K]`` from torch's CPU int4 packing."""
    block_rows = int4_block_rows()
    blocks = packed.view(out_features // block_rows, in_features, block_rows // 2)
    codes = torch.cat([blocks & 15, blocks >> 4], dim=2)  # [N / rows, K, rows]: low-nibble rows, then high
    return codes.permute(0, 2, 1).reshape(out_features, in_features).to(torch.int32)


def dequantize_int4(packed: torch.Tensor, group: int, scales_zeros: torch.Tensor, in_features: int) -> torch.Tensor:
    """The float32 weight ``[N, K]`` the packed codes and (scale, zero) pairs stand for."""
    out_features = scales_zeros.shape[1]
    codes = unpack_int4_codes(packed, out_features, in_features).float()
    scale = scales_zeros[..., 0].float().t().repeat_interleave(group, dim=1)  # [N, K]
    zero = scales_zeros[..., 1].float().t().repeat_interleave(group, dim=1)
    return (codes - 8) * scale + zero


def quantize_rows_int8(x: torch.Tensor, group: int, levels: int) -> torch.Tensor:
    """Each row quantized to int8 per ``group`` inputs (codes; with ``levels=2`` also each rounding error in 254
    steps of the group's scale) and dequantized again, in float32."""
    rows, in_features = x.shape
    groups = x.float().view(rows, in_features // group, group)
    amax = groups.abs().amax(dim=-1, keepdim=True)
    scale = amax / 127.0
    # The kernels' inverses are IEEE float32 quotients. torch computes a Python number over a tensor as the number
    # times the tensor's reciprocal, which is off by an ulp for about a quarter of the groups and moves codes that sit
    # on a rounding tie; a tensor over a tensor is the correctly rounded quotient.
    inverse = torch.where(amax > 0, torch.full_like(amax, 127.0) / amax, torch.zeros_like(amax))
    codes = (groups * inverse).round()  # round half to even, as the kernel's nearbyint
    if levels == 1:
        return (codes * scale).view(rows, in_features)
    residual_inverse = torch.where(amax > 0, torch.full_like(scale, RESIDUAL_STEPS) / scale, torch.zeros_like(amax))
    residuals = ((groups - codes * scale) * residual_inverse).round().clamp(-127, 127)
    return (scale * (codes + residuals / RESIDUAL_STEPS)).view(rows, in_features)


def int4_linear(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor,
                levels: int = 1) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: the int8-quantized rows (``levels`` 1 or 2) times the int4 weight, accumulated
    in float32 (``kernels.cpu.int4_linear``, and with 2 levels ``int4_linear_two_level``)."""
    weight = dequantize_int4(packed, group, scales_zeros, x.shape[1])
    return (quantize_rows_int8(x, group, levels=levels) @ weight.t()).to(x.dtype)


def int8_linear(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: the int8-quantized rows times the per-channel int8 weight, in float32."""
    dequantized = weight.float() * scales.float()[:, None]
    return (quantize_rows_int8(x, INT8_INPUT_GROUP, levels=2) @ dequantized.t()).to(x.dtype)


def int8_head_linear(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, levels: int = 2) -> torch.Tensor:
    """``[rows, N]`` in ``x``'s dtype: each row quantized to int8 with one scale for the whole row (``levels`` 1 or
    2) times the per-channel int8 weight, in float32 (``kernels.cpu.lm_head_linear``; ``weight`` unpacked)."""
    dequantized = weight.float() * scales.float()[:, None]
    return (quantize_rows_int8(x, x.shape[1], levels=levels) @ dequantized.t()).to(x.dtype)
