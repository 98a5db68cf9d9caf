"""A bias-optional linear layer with optional CPU serving copies of its weight, picked per call by row count.

On CPU, decode batches are tiny matrices against fixed weights, so the weight's layout decides the speed
(docs/benchmarks.md, "CPU linears", has the figures per row count):

* ``prepack_cpu``: the dense weight reordered once into oneDNN's blocked layout (what inductor does under
  ``freezing``). Same math as ``F.linear`` (bitwise equal results) without re-packing the weight on every call.
* ``quantize_int4``: group-wise asymmetric 4-bit weights (``torch._weight_int4pack_mm_for_cpu``), a GEMV-like
  kernel reading a quarter of bf16's bytes; its cost grows linearly with rows, so it is used only up to
  ``quant_max_rows``. Group size 32 with min/max scales is llama.cpp's Q4_1 layout, so a Q4_1 GGUF's weights are
  represented on the same grid. Inputs of up to ``quant_kernel_rows`` rows (decode at low concurrency, draft
  verification) go to ``kernels.cpu``'s int4 linear instead (AVX-512 VNNI, or AVX2 on CPUs without it): the same
  packed weights with each row quantized to int8 per group, each weight vector unpacked once per tile of rows (8 on
  AVX512-VBMI CPUs, else 4).
  One row (``quant_kernel``) quantizes its input in two levels (``int4_linear_two_level``), which keeps torch's
  float-input accuracy (teacher-forced, ``bench.agreement``) for what a second row of the tile costs, and reads a
  copy of the scales laid out per 64-row block (``quant_row_scales``), streamed in with the weights. Above
  ``quant_kernel_rows`` the same op runs a GEMM that keeps the inputs unquantized where one is built for the CPU
  (``int4_gemm_bf16`` on AVX512-BF16, ``int4_gemm_avx2`` on AVX2-only CPUs), else torch's kernel.
* ``quantize_int8``: per-output-channel symmetric int8 (``torch._weight_int8pack_mm``), the int4 engine's LM head
  and a switch of its own; inputs of up to ``quant_kernel_rows`` rows go to ``kernels.cpu``'s int8 linear (AVX-512
  VNNI or AVX2: each weight chunk dotted with tiles of 4 rows), more rows to ``int8_gemm_bf16`` on AVX512-BF16 CPUs
  (bf16 inputs unquantized), else torch's kernel. The LM head (``ParallelLMHead``) on AVX-512 VNNI CPUs instead packs
  the int8 weight once for ``kernels.cpu.lm_head_linear`` (``quant_packed``: vpdpbusd, 64 products an instruction,
  inputs quantized per row in two levels), which serves every row count, faster than the kernels above at each
  (``python -m bench.lm_head``: 1.3x at one row, 1.5-2.6x at 2-16, 1.1-1.3x at 32-64, even at 128), with the
  same logits as the grouped kernel's to bfloat16 rounding.
* ``quantize_fp8``: FP8 W8A8 as Hopper serves it: e4m3 weights with a float32 scale per output channel, each input
  row quantized to e4m3 with its own scale as it arrives, at every row count: ``torch._scaled_mm`` on CUDA (compute
  capability 8.9+; the dequantizing reference ``kernels.reference.fp8_linear`` on older GPUs), where it halves the
  bytes each decode step reads against bf16. On the CPU the same math runs with the codes held as their exact bf16
  values through the bf16 GEMM (``kernels.fp8_linear.codes_linear``): for tests and measurements, bf16's memory.

Quantization and packing are serving switches; parity tests run the dense float32 ``F.linear``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank, all_reduce
from kernels import dispatch
from kernels.reference import fp8_linear as fp8_reference

INT4_GROUP_SIZE = 32
# The packed int8 head quantizes each input row in two levels: one level (8 bits against the row's largest input)
# moved 2.8% of SmolLM2's top-1 tokens (its own hidden states, teacher-forced) against the grouped two-level kernel
# and tripled the KL from float32; two levels moved none, at the same KL.
HEAD_INPUT_LEVELS = 2


def cpu_prepack_supported(dtype: torch.dtype) -> bool:
    """oneDNN's packed linear pays off for bf16 (AMX/AVX512-BF16); float32 keeps MKL's ``F.linear``."""
    return (dtype == torch.bfloat16 and torch.backends.mkldnn.is_available()
            and torch.ops.mkldnn._is_mkldnn_bf16_supported())


def int4_supported(out_features: int, in_features: int, dtype: torch.dtype) -> bool:
    # The CPU int4 kernel takes bf16/fp16 activations (float32 is ~100x slower) and whole groups.
    return dtype in (torch.bfloat16, torch.float16) and in_features % INT4_GROUP_SIZE == 0 and out_features % 16 == 0


class Linear(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(out_features), requires_grad=False) if bias else None
        self.packed_weight: torch.Tensor | None = None
        # At most one weight-only quantized copy, used for inputs of at most quant_max_rows rows (None: every row
        # count, in a compiled graph, which must not compare its symbolic row count with a bound of the engine's:
        # the guard would travel with inductor's cached graph to an engine of another bound and fail its start).
        self.quant_kind: str | None = None
        self.quant_weight: torch.Tensor | None = None
        self.quant_scales: torch.Tensor | None = None
        self.quant_max_rows: int | None = 0
        # kernels.cpu's kernel for the quantized copy (the signature of torch's op for its kind), where it runs on
        # this CPU, used for inputs of at most quant_kernel_rows rows (torch's op for the rest). fp8: the op for
        # every row count (dispatch.fp8_linear's pick).
        self.quant_kernel: Callable[..., torch.Tensor] | None = None
        self.quant_kernel_rows = 0
        # int4: the scales as quant_kernel reads them fastest for one row (kernels.cpu.int4_row_scales: per 64-row
        # block where its AVX-512 kernel runs); quant_scales (torch's layout) serve every other path.
        self.quant_row_scales: torch.Tensor | None = None
        # int4 with quant_kernel_rows > 1: the kernel up to that many rows and torch's op above, chosen inside one
        # op per call (a compiled graph of 2+ tokens never compares its symbolic row count here).
        self.quant_kernel_up_to: Callable[..., torch.Tensor] | None = None
        # int8: the weight packed for kernels.cpu.lm_head_linear (the LM head: ParallelLMHead.quantize_int8), which
        # then serves every row count up to quant_max_rows instead of the kernels above.
        self.quant_packed: torch.Tensor | None = None

    def prepack_cpu(self, batch_hint: int = 32) -> None:
        """Keep a oneDNN-blocked copy of the weight for inputs above the quantized path's rows."""
        self.packed_weight = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach(), batch_hint)

    def quantize_int8(self, max_rows: int | None, kernel_rows: int = 1) -> None:
        """Per-channel symmetric int8 copy of the weight, used for inputs of at most ``max_rows`` rows (None: all),
        those of at most ``kernel_rows`` through ``kernels.cpu``'s int8 linear where it runs here."""
        w = self.weight.detach().float()
        scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-8)
        self.quant_weight = torch.round(w / scales[:, None]).clamp(-128, 127).to(torch.int8).contiguous()
        self.quant_scales = scales.to(self.weight.dtype)
        self.quant_kind, self.quant_max_rows = "int8", max_rows
        self.quant_packed = None
        self.quant_row_scales = None
        on_cpu = self.weight.device.type == "cpu"
        self.quant_kernel = dispatch.cpu_one_row_linear("int8", *self.weight.shape) if on_cpu else None
        self.quant_kernel_rows = kernel_rows
        self.quant_kernel_up_to = dispatch.cpu_int8_linear_up_to(*self.weight.shape) \
            if on_cpu and kernel_rows > 1 else None

    def quantize_int4(self, max_rows: int | None, kernel_rows: int = 1) -> bool:
        """Group-wise (32) asymmetric 4-bit copy of the weight for inputs of at most ``max_rows`` rows (None: all),
        those of at most ``kernel_rows`` through ``kernels.cpu``'s int4 linear where it runs here; False (and
        nothing changes) where the CPU kernel does not support this shape or dtype."""
        out_features, in_features = self.weight.shape
        if self.weight.device.type != "cpu" or not int4_supported(out_features, in_features, self.weight.dtype):
            return False
        groups = self.weight.detach().float().view(out_features, in_features // INT4_GROUP_SIZE, INT4_GROUP_SIZE)
        low, high = groups.amin(-1, keepdim=True), groups.amax(-1, keepdim=True)
        scale = ((high - low) / 15).clamp(min=1e-8)
        q = ((groups - low) / scale).round().clamp(0, 15).to(torch.int32).view(out_features, in_features)
        # The kernel computes (q - 8) * scale + zero, so zero is the value of the middle code.
        zero = low + 8 * scale
        self.quant_weight = torch._convert_weight_to_int4pack_for_cpu(q, 1)
        self.quant_scales = torch.stack([scale.view(out_features, -1).t(), zero.view(out_features, -1).t()],
                                        dim=-1).to(self.weight.dtype).contiguous()
        self.quant_kind, self.quant_max_rows = "int4", max_rows
        self.quant_packed = None
        self.quant_kernel = dispatch.cpu_one_row_linear("int4", out_features, in_features)
        self.quant_row_scales = torch.ops.warden_cpu.int4_row_scales(self.quant_scales) \
            if self.quant_kernel is not None else None
        self.quant_kernel_rows = kernel_rows
        self.quant_kernel_up_to = dispatch.cpu_int4_linear_up_to(out_features, in_features) if kernel_rows > 1 \
            else None
        return True

    def quantize_fp8(self) -> None:
        """e4m3 copy of the weight with a float32 scale per output channel (the channel's largest magnitude / 448),
        serving every row count; the weight's device decides the op and the dtype the codes are held in
        (``dispatch.fp8_linear``: e4m3 on CUDA, their exact bf16 values on the CPU)."""
        codes, scales = fp8_reference.quantize_rows(self.weight.detach())
        self.quant_kernel, storage = dispatch.fp8_linear(self.weight.device, *self.weight.shape)
        self.quant_weight = codes.to(storage).contiguous()
        self.quant_scales = scales.reshape(1, -1).contiguous()  # [1, N]: torch._scaled_mm's row-wise scale_b
        self.quant_kind, self.quant_max_rows = "fp8", None
        self.quant_packed = None
        self.quant_row_scales = None
        self.quant_kernel_rows, self.quant_kernel_up_to = 0, None

    def release_dense_weight(self) -> None:
        """Drop this module's reference to the dense weight once the quantized copy serves every row count
        (``quant_max_rows`` None). A weight shared with another module (a head tied to
        the embeddings) stays alive through that module."""
        self.weight = nn.Parameter(self.weight.new_empty(0), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._matmul(x, self.bias)

    def _matmul(self, x: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        if self.quant_weight is not None and self.quant_scales is not None and (
                self.quant_max_rows is None or x.shape[0] <= self.quant_max_rows):
            if self.quant_kind == "fp8" and self.quant_kernel is not None:
                rows = x.reshape(-1, x.shape[-1])  # torch._scaled_mm multiplies matrices only
                y = self.quant_kernel(rows, self.quant_weight, self.quant_scales).reshape(*x.shape[:-1], -1)
                return y if bias is None else y + bias
            if self.quant_packed is not None:
                y = torch.ops.warden_cpu.lm_head_linear(x, self.quant_packed, self.quant_scales, HEAD_INPUT_LEVELS)
                return y if bias is None else y + bias
            # One row is static in a compiled graph (the one-token graph; the other has 2+ rows), so it guards on
            # nothing; more rows are compared inside quant_kernel_up_to.
            # The int4 kernels take the group size after the weight; the int8 ones do not.
            group = (INT4_GROUP_SIZE,) if self.quant_kind == "int4" else ()
            if x.shape[0] == 1 and self.quant_kernel is not None:
                scales = self.quant_row_scales if self.quant_row_scales is not None else self.quant_scales
                y = self.quant_kernel(x, self.quant_weight, *group, scales)
            elif self.quant_kernel_up_to is not None:
                y = self.quant_kernel_up_to(x, self.quant_weight, *group, self.quant_scales, self.quant_kernel_rows)
            elif self.quant_kind == "int4":
                y = torch._weight_int4pack_mm_for_cpu(x, self.quant_weight, INT4_GROUP_SIZE, self.quant_scales)
            else:
                y = torch._weight_int8pack_mm(x, self.quant_weight, self.quant_scales)
            return y if bias is None else y + bias
        if self.packed_weight is not None:
            return torch.ops.mkldnn._linear_pointwise(x, self.packed_weight, bias, "none", [], "")
        return F.linear(x, self.weight, bias)


class RowParallelLinear(Linear):
    """A linear layer whose input features are split over the tensor-parallel ranks (``o_proj``, ``down_proj``):
    each rank multiplies its slice of the input by its slice of the weight, and the partial outputs are summed
    across ranks; the bias, held whole by every rank, is added once after the sum. The layers before it are
    column-parallel — plain ``Linear`` layers with a slice of the output features, needing no communication."""

    def __init__(self, in_features: int, out_features: int, tp: TensorParallelRank, bias: bool = False) -> None:
        super().__init__(in_features, out_features, bias)  # in_features: this rank's slice
        self.tp = tp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.tp.size == 1:
            return super().forward(x)
        y = all_reduce(self._matmul(x, None))
        return y if self.bias is None else y + self.bias
