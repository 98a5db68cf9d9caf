"""The token embedding and the LM head split by vocabulary rows over the tensor-parallel ranks
(``engine.distributed.sharding.vocab_shard``). At one rank both are the plain layers."""

from __future__ import annotations

import torch
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank, all_gather_last_dim, all_reduce
from engine.distributed.sharding import vocab_shard
from engine.layers.linear import Linear
from kernels import cpu as cpu_kernels


class VocabParallelEmbedding(nn.Module):
    """Each rank looks up the token ids in its row range and writes zeros for the others; the sum over ranks
    is the full lookup."""

    def __init__(self, vocab_size: int, hidden_size: int, tp: TensorParallelRank) -> None:
        super().__init__()
        self.shard = vocab_shard(vocab_size, tp.rank, tp.size)
        self.sharded = tp.size > 1
        self.weight = nn.Parameter(torch.zeros(self.shard.padded_size, hidden_size), requires_grad=False)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if not self.sharded:
            return nn.functional.embedding(input_ids, self.weight)
        local = input_ids - self.shard.start
        outside = (input_ids < self.shard.start) | (input_ids >= self.shard.end)
        x = nn.functional.embedding(local.masked_fill(outside, 0), self.weight)
        return all_reduce(x.masked_fill(outside.unsqueeze(-1), 0))


class ParallelLMHead(Linear):
    """Each rank computes the logits of its vocabulary rows; the gather concatenates them in rank order and cuts
    the padding rows off the end."""

    def __init__(self, hidden_size: int, vocab_size: int, tp: TensorParallelRank) -> None:
        shard = vocab_shard(vocab_size, tp.rank, tp.size)
        super().__init__(hidden_size, shard.padded_size)
        self.weight.data.zero_()  # padding rows (past the vocabulary) are never loaded
        self.vocab_size, self.tp = vocab_size, tp

    def quantize_int8(self, max_rows: int | None, kernel_rows: int = 1) -> None:
        """``Linear.quantize_int8``, and where ``kernels.cpu.lm_head_linear`` runs for this shape, the int8 weight
        packed for it once: it then serves every row count (a step's sampling rows, draft verification's)."""
        super().quantize_int8(max_rows, kernel_rows)
        assert self.quant_weight is not None
        out_features, in_features = self.quant_weight.shape
        if self.quant_kernel is not None and cpu_kernels.lm_head_supported(out_features, in_features):
            self.quant_packed = cpu_kernels.lm_head_pack(self.quant_weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.tp.size == 1:
            return super().forward(x)
        return all_gather_last_dim(super().forward(x), self.tp.size)[:, : self.vocab_size]
