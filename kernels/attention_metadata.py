"""What an attention kernel needs to know about one flattened, mixed prefill+decode batch.

Layout conventions (vLLM's, so Triton kernels can follow them):

* Queries of all sequences are concatenated: ``q`` is ``[num_tokens, num_heads, head_dim]``; sequence ``b``
  owns rows ``query_start_loc[b]:query_start_loc[b + 1]``.
* Decodes come first: sequences ``0 .. num_decodes-1`` have exactly one query token each; the rest
  (prefill chunks, possibly continuing an earlier chunk) have one or more.
* ``seq_lens[b]`` counts the tokens in the KV cache for ``b`` *after* this step's tokens are stored, so
  query ``i`` of ``b`` sits at position ``seq_lens[b] - query_len[b] + i`` and attends causally to keys
  ``0 ..`` that position.
* The KV cache of one layer is ``[num_blocks, block_size, num_kv_heads, head_dim]``; ``block_tables[b, j]``
  is the physical block holding positions ``j*block_size .. (j+1)*block_size - 1`` of ``b`` (rows are padded
  with 0, which is never read for positions ``>= seq_lens[b]``). ``slot_mapping[t]`` is the flat slot
  (``block * block_size + offset``) where token ``t``'s key and value are written; -1 would mean "skip",
  but the engine never emits it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(slots=True)
class AttentionMetadata:
    query_start_loc: torch.Tensor  # int32 [num_seqs + 1]
    seq_lens: torch.Tensor  # int32 [num_seqs]
    block_tables: torch.Tensor  # int32 [num_seqs, max_blocks_per_seq]
    slot_mapping: torch.Tensor  # int64 [num_tokens]
    num_decodes: int  # leading sequences with exactly one query token
    max_query_len: int
    max_seq_len: int
    max_decode_seq_len: int  # longest context among the decodes (0 when none)

    @property
    def num_seqs(self) -> int:
        return self.seq_lens.shape[0]
