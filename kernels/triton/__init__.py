"""Triton kernels, one module per op, each with exactly the signature of its reference in ``kernels.reference``
(the dispatch point in ``kernels.dispatch`` swaps one for the other). Importing this package needs ``triton``;
running the kernels needs CUDA tensors, or CPU tensors with ``TRITON_INTERPRET=1`` set before the import."""

from kernels.triton.activation import silu_and_mul
from kernels.triton.block_sparse_attention import block_sparse_attention
from kernels.triton.fused_moe import fused_moe
from kernels.triton.kv_store import store_kvcache
from kernels.triton.paged_attention import paged_attention
from kernels.triton.rms_norm import fused_add_rms_norm, rms_norm
from kernels.triton.rotary import rotary_embedding

__all__ = ["block_sparse_attention", "fused_add_rms_norm", "fused_moe", "paged_attention", "rms_norm",
           "rotary_embedding", "silu_and_mul", "store_kvcache"]
